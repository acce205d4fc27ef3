#include <stdio.h>
#include <stdlib.h>
#include "starling/kepler_drift.h"
static double urand(void){return rand()/(RAND_MAX+1.0);}
int main(void){
  double fr[]={0.01,0.05,0.2,1.0,5.0};
  for(int q=0;q<5;q++){ srand(2); long tot=0,n=0,gt4=0,fail=0,mx=0;
    for(int k=0;k<200000;k++){ double e=1.0+5*urand()*urand(), nu, gm=1, p=1.0*(urand()+0.1);
      double numax=acos(-1/e)*0.95; nu=(2*urand()-1)*numax;
      double r=p/(1+e*cos(nu)); double x[3]={r*cos(nu),r*sin(nu),0}; double h=sqrt(gm*p);
      double v[3]={-gm/h*sin(nu), gm/h*(e+cos(nu)),0};
      double dt=fr[q]*sqrt(p*p*p/gm)*(urand()<0.5?1:-1);
      int it=sl_kepler_drift_tol(gm,dt,1e-6,x,v); if(it<0){fail++;continue;} tot+=it;n++; if(it>4)gt4++; if(it>mx)mx=it; }
    printf("dt %.2f: mean %.3f  >4: %.4f  max %ld fail %ld\n", fr[q], (double)tot/n, (double)gt4/n, mx, fail); }
}
