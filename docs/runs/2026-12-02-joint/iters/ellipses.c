#include <stdio.h>
#include <stdlib.h>
#include "starling/kepler_drift.h"
static double urand(void){return rand()/(RAND_MAX+1.0);}
/* ellipses [EMIN EMAX]: eccentricities drawn from [EMIN, EMAX), default 0 .. 0.9 */
int main(int argc, char **argv){
  double e0 = argc > 2 ? atof(argv[1]) : 0.0, e1 = argc > 2 ? atof(argv[2]) : 0.9;
  double fr[]={0.02,0.05,0.1,0.15,0.2,0.3};
  for(int q=0;q<6;q++){ srand(1); long tot=0,n=0,gt4=0,fail=0; int hist[41]={0};
    for(int k=0;k<200000;k++){ double e=e0+(e1-e0)*urand(), nu=2*M_PI*urand(), a=1, gm=1, p=a*(1-e*e);
      double r=p/(1+e*cos(nu)); double x[3]={r*cos(nu),r*sin(nu),0}; double h=sqrt(gm*p);
      double v[3]={-gm/h*sin(nu), gm/h*(e+cos(nu)),0};
      double T=2*M_PI; double dt=fr[q]*T*(urand()<0.5?1:-1);
      int it=sl_kepler_drift_tol(gm,dt,1e-6,x,v); if(it<0){fail++;continue;} tot+=it;n++; if(it>4)gt4++; hist[it]++; }
    printf("dt/T %.2f: mean %.3f  >4: %.4f  fail %ld  hist", fr[q], (double)tot/n, (double)gt4/n, fail);
    for(int i=1;i<8;i++) printf(" %d",hist[i]); printf("\n"); }
}
