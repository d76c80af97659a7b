#!/usr/bin/python3
# One-off fit of a profile's numbers to the published figures (eval/model.h's
# model, same equations); its printout was pasted into eval/profiles/.
import numpy as np
K=['dr','dw','nr','nw']
def solve(W, d1, wl, pen=None, iters=400):
    # wl: list of (kind, threads, cpu, mbafac); returns T per workload, x per kind
    T=np.array([d1[k]*n*c*m for k,n,c,m in wl],float)
    for it in range(iters):
        Tk=np.zeros(4)
        for (k,n,c,m),t in zip(wl,T): Tk[k]+=t
        U=np.minimum(W@Tk,0.97)
        x=1/(1-U)
        if pen is not None:
            nk=np.zeros(4)
            for (k,n,c,m) in wl: nk[k]+=n
            x=x*np.array([pen(k,nk[k]) for k in range(4)])
        Tn=np.array([d1[k]*n*c*m/x[k] for k,n,c,m in wl])
        T=0.7*T+0.3*Tn
    return T,x


# root of f between lo and hi (f(lo), f(hi) of opposite signs), by halving
def bisect(f,lo,hi,n=60):
    flo=f(lo)
    for _ in range(n):
        mid=(lo+hi)/2; fm=f(mid)
        if (fm>0)==(flo>0): lo,flo=mid,fm
        else: hi=mid
    return (lo+hi)/2
