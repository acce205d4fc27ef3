#include <stdio.h>
#include <stdlib.h>
#include "starling/kepler_drift.h"
int main(void){
  FILE*f=fopen("tests/data/solar_system.csv","r"); char line[512]; double s[9][7]; int n=0,hdr=0;
  while(fgets(line,sizeof line,f)){ if(line[0]=='#'||line[0]=='\n')continue; if(!hdr){hdr=1;continue;}
    char*p=line; while(*p&&*p!=',')p++; p++; for(int k=0;k<7;k++){s[n][k]=strtod(p,&p); if(*p==',')p++;} n++;}
  double dt=8.0/365.25*2*M_PI; double m0=s[0][0];
  for(int i=1;i<n;i++){ double x[3],v[3]; for(int d=0;d<3;d++){x[d]=s[i][1+d]-s[0][1+d]; v[d]=s[i][4+d]-s[0][4+d];}
    int hist[50]={0}; for(int k=0;k<20000;k++){ int it=sl_kepler_drift_tol(m0,dt,1e-6,x,v); hist[it<0?0:it]++; }
    printf("planet %d:",i); for(int q=0;q<8;q++) if(hist[q]) printf(" %d:%d",q,hist[q]); printf("\n"); }
}
