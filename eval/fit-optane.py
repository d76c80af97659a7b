#!/usr/bin/python3
# One-off fit of a profile's numbers to the published figures (eval/model.h's
# model, same equations); its printout was pasted into eval/profiles/.
import numpy as np
from fit_model import solve, bisect
dr,dw,nr,nw=0,1,2,3
Ts=np.array([10.0,7.4,5.2,1.8])
Us=np.array([0.40,None,0.50,0.60],dtype=object)
NT=2
omega=np.array([1.0,1.3,1.5,6.0])   # per-GB/s weight in DRAM queues
W=np.zeros((4,4)); d1=np.zeros(4)
def setself(k,u):
    W[k][k]=u/Ts[k]; d1[k]=Ts[k]/(1-u)
# dr row
setself(dr,0.40); W[dr]=W[dr][dr]*omega/omega[dr]
# nw row: self 0.6, others relative
setself(nw,0.60); om_nw=np.array([0.02,0.03,0.06,0]); W[nw][[dr,dw,nr]]=om_nw[[dr,dw,nr]]
# nr self
setself(nr,0.50)
# dw row: base fitted -> self weight depends on base; d1 from solo
def set_dw(base):
    W[dw]=base*omega
    u=W[dw][dw]*Ts[dw]  # approx: solo U = W*Ts
    d1[dw]=Ts[dw]/(1-u)
# first a guess for nr row off-diagonals
W[nr][[dr,dw,nw]]=[0.02,0.04,0.3]
for rnd in range(6):
    def fdw(b):
        set_dw(b)
        T,x=solve(W,d1,[(dw,1,1,1),(nr,1,1,1),(nw,1,1,1),(dr,1,1,1)])
        return T[0]/Ts[dw]-2.5/7.4
    b=bisect(fdw,1e-4,0.9/(omega[dw]*Ts[dw])); set_dw(b)
    for j,r in [(nr,None),(nw,0.39),(dr,0.65),(dw,0.44)]:
        if r is None: continue
        def f(w):
            W[nr][j]=w
            T,x=solve(W,d1,[(nr,1,1,1),(j,NT,1,1)])
            return T[0]/Ts[nr]-r
        W[nr][j]=bisect(f,0,2)
np.set_printoptions(precision=5,suppress=True)
print("W\n",W); print("d1",d1)
for k in range(4):
    T,x=solve(W,d1,[(k,1,1,1)]); print("solo",k,T,x)
for j in range(4):
    T,x=solve(W,d1,[(nr,1,1,1),(j,NT,1,1)]); print("nr victim vs",j,T[0]/Ts[nr],T,x)
T,x=solve(W,d1,[(dw,1,1,1),(nr,1,1,1),(nw,1,1,1),(dr,1,1,1)]); print("dw with 3",T,x)
