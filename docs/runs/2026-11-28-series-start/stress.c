#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "starling/kepler_drift.h"
static double u01(unsigned long long *s){*s=*s*6364136223846793005ULL+1442695040888963407ULL;return ((*s>>11)+0.5)/9007199254740992.0;}
int main(void){
  unsigned long long s=42; long hist[41]={0}; long fail=0, tot=0, its=0;
  for(long k=0;k<2000000;k++){
    double e = u01(&s)<0.8 ? pow(u01(&s),0.3)*0.9999 : 1+pow(10,4*u01(&s)-4)*10; /* ellipses and hyperbolas */
    double q = pow(10,2*u01(&s)-1), gm=1, nu = (2*u01(&s)-1)*(e<1?M_PI:acos(-1/e)*0.99);
    double p=q*(1+e), r=p/(1+e*cos(nu)); double x[3]={r*cos(nu),r*sin(nu),0};
    double h=sqrt(gm*p); double v[3]={-gm/h*sin(nu), gm/h*(e+cos(nu)),0};
    double tdyn=sqrt(r*r*r/gm); double dt=tdyn*pow(10,5*u01(&s)-4)*(u01(&s)<0.5?-1:1);
    double tol = (k&1)?1e-6:0;
    int it=sl_kepler_drift_tol(gm,dt,tol,x,v); tot++;
    if(it<0){fail++;continue;} its+=it; hist[it>40?40:it]++;
  }
  printf("fail %ld mean %.3f max:", fail, (double)its/tot);
  for(int i=40;i>=0;i--) if(hist[i]){printf(" %d(%ld)",i,hist[i]); break;}
  printf("\nhist:"); for(int i=0;i<=40;i++) if(hist[i]) printf(" %d:%ld",i,hist[i]); printf("\n");
}
