#!/usr/bin/env python3
"""Reference magnifications for the microlensing plugin (plugins/microlensing).

Writes, under tests/data/microlensing/ (CSV, '#' comments, a header row):
  point_fs.csv    u,rho,a1,A: single lens, finite source of radius rho with
                  linear limb darkening I(r) ~ 1 - a1 (1 - sqrt(1 - r^2/rho^2)).
                  A from a direct quadrature (below), good to ~1e-13; checked
                  against a 2-D integral, the Witt & Mao 1994 closed form,
                  MulensModel and VBMicrolensing's ESPLMag2 (whose tabulated
                  ESPL kernel is only good to ~1e-4, so it is not the source).
  binary_ps.csv   s,q,y1,y2,A,n_images: point source, binary lens, from
                  VBMicrolensing BinaryMag0(s, q, y1, y2); kept only where
                  MulensModel's Witt & Mao 1995 solver and our own root solve
                  agree to 1e-8 and the source is >= 1e-3 from a caustic.
  binary_lc.csv   model,t0,u0,tE,s,q,alpha_deg,t,A,y1,y2: MulensModel Model
                  ('point_source') light curves; y1,y2 the source position in
                  BinaryMag0's frame from MulensModel's convention (see FRAME).
  pspl_lc.csv     model,t0,u0,tE,rho,t,A: PSPL (MulensModel) and FSPL uniform.
  binary_random.csv  s,q,y1,y2,A,n_images: 4000 random lenses and sources, far
                  ones included (binary_random() says how they are drawn).
  caustics_box.csv   s,q,n_caustics,x_min,x_max,y_min,y_max: VBMicrolensing's
                  Caustics(s, q), counted and boxed.
  binary_fs_lc.csv   t,y1,y2,A_uniform,A_ld: a finite source crossing a binary
                  caustic, VBMicrolensing's BinaryMag2 (binary_fs_lc() says which).
  fsbl_lc.csv     t,y1,y2,A_uniform,A_ld,d_caustic: a finite source passing a binary's
                  caustics and far from them (fsbl_lc() says which), BinaryMag2.
  fsbl_event.csv  time,mag,err: a finite source crossing a resonant caustic, magnitudes
                  from BinaryMag2 with noise; its chi^2 at the truth in the comments.
  parallax_lc.csv model,t0,u0,tE,s,q,alpha,pi_E_N,pi_E_E,t0_par,ra,dec,t,A: MulensModel
                  light curves with annual parallax (point lens; binary, point source).
  orbital_lc.csv  t0,u0,tE,s,q,alpha,ds_dt,dalpha_dt,t0_kep,pi_E_N,pi_E_E,t0_par,ra,dec,t,A:
                  MulensModel binary light curves (point source) with the lens's linear
                  orbital motion, with and without annual parallax.
  kepler_lc.csv   t0,u0,tE,s,q,alpha,ds_dt,dalpha_dt,s_z,ds_z_dt,a_s,t0_kep,pi_E_N,pi_E_E,
                  t0_par,ra,dec,t,A: MulensModel binary light curves (point source) with the
                  lens on a circular or elliptical Keplerian orbit.
  spitzer_eph.csv time,ra,dec,distance: MulensModel's Spitzer_ephemeris_01.dat (JPL
                  Horizons, geocentric, daily) as JD, degrees and AU, via MulensModel's reader.
  satellite_lc.csv model,t0,u0,tE,s,q,alpha,pi_E_N,pi_E_E,t0_par,ra,dec,space,t,A:
                  MulensModel light curves with annual parallax seen from the Earth
                  (space = 0) and from Spitzer (space = 1, through that ephemeris).
  binsrc_lc.csv   t0,u0,t0_2,u0_2,tE,q_flux,pi_E_N,pi_E_E,t0_par,ra,dec,t,A: MulensModel
                  light curves of two point sources behind a point lens (its 1L2S model
                  with source_flux_ratio), without and with annual parallax.
  xallarap_lc.csv model,t0,u0,tE,s,q,alpha,xi_period,xi_semimajor_axis,xi_Omega_node,
                  xi_inclination,xi_argument_of_latitude_reference,pi_E_N,pi_E_E,t0_par,ra,dec,t,A:
                  MulensModel light curves with circular xallarap (t_0_xi = t_0), point and
                  binary lenses, without and with annual parallax.
  multi_ps.csv    config,n,x1,y1,m1,...,x4,y4,m4,y1s,y2s,A: point sources behind three
                  and four point lenses, VBMicrolensing's MultiMag0 (multi_ps() says which).
  phot_event.csv  time,mag,err,band: a planetary event's photometry in I and V, and
  phot_chi2.csv   MulensModel's chi^2 and fitted fluxes on it for pspl, fspl and binary
                  models (phot_event() says how both are made).

FRAME (BinaryMag0 = MulensModel, verified below): origin at the centre of
mass, lens 1 (mass 1/(1+q)) at x = -s q/(1+q), lens 2 (mass q/(1+q)) at
x = +s/(1+q), for q < 1 and q > 1 alike.  With tau = (t - t0)/tE, a = alpha:
    y1 = -tau cos a + u0 sin a,   y2 = -tau sin a - u0 cos a.

Run:  python3 -m venv /tmp/mlenv   (then with file names, e.g. binary_random, only those)
      /tmp/mlenv/bin/pip install -r tests/reference/microlensing_requirements.txt
      /tmp/mlenv/bin/python tests/reference/microlensing_ref.py
Made with: python 3.11.7, numpy 2.4.6, scipy 1.17.1, VBMicrolensing 5.6.1,
MulensModel 3.12.0 (pip).
"""
import os
import sys
import platform
import warnings

import MulensModel as mm
import numpy as np
import scipy
import VBMicrolensing
from numpy.polynomial import Polynomial
from scipy.integrate import dblquad, quad

warnings.simplefilter("ignore")  # quadpack round-off notes; results are cross-checked
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "microlensing")
VBM = VBMicrolensing.VBMicrolensing()
VBM.Tol, VBM.RelTol = 1e-9, 1e-9  # tighter makes ESPLMag2 very slow (1e-10: ~3 s a call)
Q = dict(epsabs=0, epsrel=1e-13, limit=1000)
STAMP = ("# made by tests/reference/microlensing_ref.py: python %s, numpy %s, scipy %s, "
         "VBMicrolensing %s, MulensModel %s\n" % (platform.python_version(), np.__version__,
                                                   scipy.__version__, VBMicrolensing.__version__,
                                                   mm.__version__))


def write(name, comments, cols, rows):
    with open(os.path.join(DATA, name), "w") as f:
        f.write("".join("# %s\n" % c for c in comments) + STAMP + ",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(v if isinstance(v, str) else "%d" % v if isinstance(v, (int, np.integer))
                             else "%.17g" % v for v in r) + "\n")
    print("%-14s %4d rows" % (name, len(rows)))


# ---- single lens, finite source ------------------------------------------------------
def dF(a, b):
    """F(a) - F(b) without cancellation, F(x) = x sqrt(x^2+4)/2 = int_0^x x' A_ps(x') dx'."""
    sa, sb = np.sqrt(a * a + 4), np.sqrt(b * b + 4)
    return (a - b) * (a + b) * (a * a + b * b + 4) / (2 * (a * sa + b * sb)) if a + b > 0 else 0.0


def a_unif(u, rho):
    """Uniform disc: polar coordinates about the lens, radial integral done exactly."""
    if u < rho:
        v = quad(lambda th: dF(u * np.cos(th) + np.sqrt(rho * rho - (u * np.sin(th)) ** 2), 0.0),
                 0, np.pi, **Q)[0]
    elif u == rho:
        v = quad(lambda th: dF(2 * u * np.cos(th), 0.0), 0, np.pi / 2, **Q)[0]
    else:  # sin(th) = (rho/u) sin(ph) removes the square-root end point
        def f(ph):
            sn = rho / u * np.sin(ph)
            c, w = np.sqrt(1 - sn * sn), rho * np.cos(ph)
            return dF(u * c + w, u * c - w) * rho / u * np.cos(ph) / c
        v = quad(f, 0, np.pi / 2, **Q)[0]
    return 2 * v / (np.pi * rho * rho)


def a_ld(u, rho, a1):
    """Linear LD as a sum of uniform discs: integrate by parts in r, r = rho sin t."""
    if a1 == 0:
        return a_unif(u, rho)
    pts = [np.arcsin(u / rho)] if 0 < u < rho else None
    g = lambda t: np.sin(t) ** 3 * a_unif(u, rho * np.sin(t)) if t > 0 else 0.0
    v = quad(g, 0, np.pi / 2, points=pts, epsabs=0, epsrel=1e-12, limit=1000)[0]
    return ((1 - a1) * a_unif(u, rho) + a1 * v) / (1 - a1 / 3)


def a_ld_2d(u, rho, a1):
    """Independent check: 2-D integral of I(r) A_ps(x) x dx dtheta about the lens."""
    w = lambda th: np.sqrt(max(0.0, rho * rho - (u * np.sin(th)) ** 2))
    ld = lambda x, th: 1 - a1 + a1 * np.sqrt(max(0.0, 1 - (x * x + u * u - 2 * x * u * np.cos(th)) / rho ** 2))
    f = lambda x, th: (x * x + 2) / np.sqrt(x * x + 4) * ld(x, th)
    if u <= rho:
        lo, tmax = (lambda th: 0.0), np.pi
    else:
        lo, tmax = (lambda th: u * np.cos(th) - w(th)), np.arcsin(rho / u)
    v = dblquad(f, 0, tmax, lo, lambda th: u * np.cos(th) + w(th), epsabs=0, epsrel=1e-11)[0]
    return 2 * v / (np.pi * rho * rho * (1 - a1 / 3))


def mm_point(u, rho, method, gamma=None):
    m = mm.Model({"t_0": 0.0, "u_0": u, "t_E": 1.0, "rho": rho})
    m.set_magnification_methods([-1.0, method, 1.0])
    return float(m.get_magnification(0.0, gamma=gamma)[0])


def point_fs():
    rows, dmax = [], dict(d2=0.0, vbm=0.0, mm=0.0, mmld=0.0)
    for rho in [1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0]:
        for z in [0, 0.01, 0.1, 0.5, 0.9, 0.99, 1, 1.01, 1.1, 2, 5, 20, 100]:
            u = z * rho if z != 1 else rho  # u == rho exactly
            if u > 30:
                continue
            for a1 in [0.0, 0.3, 0.6]:
                A = a_ld(u, rho, a1)
                VBM.a1 = a1
                rel = lambda b: abs(b / A - 1)
                dmax["d2"] = max(dmax["d2"], rel(a_ld_2d(u, rho, a1)))
                if z == 1 and a1 == 0:  # closed form at u = rho (WM94), with pi/2 + asin((u^2-1)/(u^2+1)) = 2 atan(u)
                    dmax["d2"] = max(dmax["d2"], rel((2 / u + (1 + u * u) * 2 * np.arctan(u) / (u * u)) / np.pi))
                dmax["vbm"] = max(dmax["vbm"], rel(VBM.ESPLMag2(u, rho)))
                if u > 0:  # MulensModel's WM94 fails at u = 0; gamma = 2 a1 / (3 - a1)
                    key, meth = ("mm", "finite_source_uniform_WittMao94") if a1 == 0 else \
                        ("mmld", "finite_source_LD_WittMao94")
                    dmax[key] = max(dmax[key], rel(mm_point(u, rho, meth, 2 * a1 / (3 - a1) if a1 else None)))
                rows.append((u, rho, a1, A))
    VBM.a1 = 0.0
    print("point_fs max rel diff: 2-D integral %.2g, VBM ESPLMag2 %.2g, MulensModel WM94 uniform %.2g, "
          "LD (gamma = 2a1/(3-a1)) %.2g" % (dmax["d2"], dmax["vbm"], dmax["mm"], dmax["mmld"]))
    write("point_fs.csv", [
        "single lens, finite source: u source-lens separation, rho source radius (Einstein units),",
        "a1 linear limb darkening, I(r) ~ 1 - a1 (1 - sqrt(1 - r^2/rho^2)); A magnification.",
        "A: quadrature over the source (scipy quad, rel 1e-13; see microlensing_ref.py), good to ~1e-13.",
        "checks, max rel diff: own 2-D integral %.1e; VBMicrolensing ESPLMag2 (a1 = a1, Tol = RelTol = 1e-9, "
        "tabulated kernel) %.1e;" % (dmax["d2"], dmax["vbm"]),
        "MulensModel finite_source_uniform_WittMao94 %.1e, finite_source_LD_WittMao94 with gamma = 2 a1/(3 - a1) "
        "%.1e (u > 0 only)" % (dmax["mm"], dmax["mmld"])], ["u", "rho", "a1", "A"], rows)


# ---- binary lens, point source ---------------------------------------------------------
def lens_x(s, q):
    """Lens positions in BinaryMag0's frame: mass 1/(1+q) left, q/(1+q) right, c.o.m. at 0."""
    return -s * q / (1 + q), s / (1 + q)


def solve_images(s, q, y1, y2, x1=None, x2=None):
    """Images of the binary lens equation: (count, magnification, sum of signed magnifications,
    sum of parities)."""
    if x1 is None:
        x1, x2 = lens_x(s, q)
    m1, m2, zeta = 1 / (1 + q), q / (1 + q), complex(y1, y2)
    D = Polynomial([x1 * x2, -(x1 + x2), 1]) + 0j  # conj(z) = N(z)/D(z) from the conjugated equation
    N = np.conj(zeta) * D + m1 * Polynomial([-x2, 1]) + m2 * Polynomial([-x1, 1])
    poly = Polynomial([zeta, -1]) * (N - x1 * D) * (N - x2 * D) + m1 * D * (N - x2 * D) + m2 * D * (N - x1 * D)
    # the 5 roots, plus a first guess for an image hugging each lens (the roots miss a tiny one)
    z = np.concatenate([poly.roots(), [xk + mk / np.conj(xk - zeta - mj / (xk - xj))
                                       for xk, mk, xj, mj in ((x1, m1, x2, m2), (x2, m2, x1, m1))]])
    lens_eq = lambda z: z - m1 / (np.conj(z) - x1) - m2 / (np.conj(z) - x2) - zeta
    kappa = lambda z: m1 / (np.conj(z) - x1) ** 2 + m2 / (np.conj(z) - x2) ** 2
    for _ in range(20):  # Newton on the lens equation itself, d + k conj(d) = -f, from all seeds
        f, k = lens_eq(z), kappa(z)
        z = z + (k * np.conj(f) - f) / (1 - np.abs(k) ** 2)
    # round-off bound of the residual (z - x_k is only known to eps |z|); spurious roots don't converge
    scale = np.abs(z) + abs(zeta) + sum(m * (np.abs(z) + abs(x)) / np.abs(z - x) ** 2 for m, x in ((m1, x1), (m2, x2)))
    z = z[np.abs(lens_eq(z)) < 1e-12 * scale]
    z = np.array([zi for i, zi in enumerate(z) if np.all(np.abs(z[:i] - zi) > 1e-9 * (1 + abs(zi)))])
    mu = 1 / (1 - np.abs(kappa(z)) ** 2)
    return len(z), float(np.sum(np.abs(mu))), float(np.sum(mu)), int(np.sum(np.sign(mu)))


def caustic_distance(s, q, y1, y2):
    d = np.inf
    for cx, cy in VBM.Caustics(s, q):
        p = np.array(cx) + 1j * np.array(cy)
        a, b = p[:-1], p[1:]
        t = np.clip(np.real((complex(y1, y2) - a) * np.conj(b - a)) / np.maximum(np.abs(b - a) ** 2, 1e-300), 0, 1)
        d = min(d, np.min(np.abs(a + t * (b - a) - complex(y1, y2))))
    return d


def wm95(s, q, y1, y2):
    """MulensModel's own Witt & Mao 1995 point-source solver at source positions (y1, y2)."""
    p = mm.ModelParameters({"t_0": 0.0, "u_0": 0.1, "t_E": 1.0, "s": s, "q": q, "alpha": 0.0})
    tr = mm.Trajectory(parameters=p, x=np.atleast_1d(y1), y=np.atleast_1d(y2))
    return mm.binarylens.BinaryLensPointSourceWM95Magnification(trajectory=tr).get_magnification()


def binary_ps():
    rng = np.random.default_rng(20250611)
    rows, drop, dmax, frame_bad = [], dict(wm95=0, own=0, caustic=0), dict(wm95=0.0, own=0.0, sum=0.0), 0.0
    for s in [0.3, 0.5, 0.8, 1.0, 1.2, 2.0, 3.0]:
        for q in [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0]:
            x1, x2 = lens_x(s, q)
            pts = list(rng.uniform(-1.5, 1.5, (14, 2)))                          # the box
            pts += [(x + rng.normal(0, 0.05), rng.normal(0, 0.05)) for x in (x1, x2, x2)]  # near lenses
            pts += list(rng.uniform(-0.1, 0.1, (3, 2)))                          # central region
            for y1, y2 in pts:
                y1, y2 = float(y1), float(y2)
                A = VBM.BinaryMag0(s, q, y1, y2)
                n, A_own, mu_sum, parity = solve_images(s, q, y1, y2)
                # frame check: the same solve with the lenses mirrored must disagree
                frame_bad = max(frame_bad, abs(solve_images(s, q, y1, y2, -x2, -x1)[1] / A - 1))
                try:
                    e_wm = float(abs(wm95(s, q, y1, y2)[0] / A - 1))
                except ValueError:
                    e_wm = np.inf
                if caustic_distance(s, q, y1, y2) < 1e-3:
                    drop["caustic"] += 1
                elif not e_wm < 1e-8:
                    drop["wm95"] += 1
                elif abs(A_own / A - 1) >= 1e-8 or n not in (3, 5) or parity != -1 or \
                        (n == 5 and abs(mu_sum - 1) > 1e-8 * A):  # n+ - n- = -1; sum mu = 1 inside
                    drop["own"] += 1
                else:
                    dmax["wm95"] = max(dmax["wm95"], e_wm)
                    dmax["own"] = max(dmax["own"], abs(A_own / A - 1))
                    if n == 5:  # inside a caustic the signed magnifications sum to 1 (Witt & Mao 1995)
                        dmax["sum"] = max(dmax["sum"], abs(mu_sum - 1) / A)
                    rows.append((s, q, y1, y2, A, n))
    print("binary_ps dropped:", drop, "kept max rel diff:", dmax,
          "| mirrored-frame solve differs by up to %.3g" % frame_bad)
    write("binary_ps.csv", [
        "binary lens, point source: A = VBMicrolensing BinaryMag0(s, q, y1, y2); frame: centre of mass at 0,",
        "lens of mass 1/(1+q) at x = -s q/(1+q), lens of mass q/(1+q) at x = s/(1+q); n_images real images (3 or 5).",
        "kept where MulensModel BinaryLensPointSourceWM95Magnification and our own root solve (numpy roots +",
        "Newton on the lens equation) agree to 1e-8 rel (max seen %.1e, %.1e) and caustic distance >= 1e-3;"
        % (dmax["wm95"], dmax["own"]),
        "dropped: %d near a caustic, %d WM95 disagreement, %d own-solve disagreement" %
        (drop["caustic"], drop["wm95"], drop["own"])],
        ["s", "q", "y1", "y2", "A", "n_images"], rows)


# ---- light curves ------------------------------------------------------------------------
def to_frame(t, t0, u0, tE, alpha_deg):
    """MulensModel's trajectory (Trajectory._calculate_xy) in BinaryMag0's frame."""
    tau, a = (t - t0) / tE, np.radians(alpha_deg)
    return -tau * np.cos(a) + u0 * np.sin(a), -tau * np.sin(a) - u0 * np.cos(a)


def binary_lc():
    models = [(0, 0.1, 20, 1.1, 1e-3, 30), (5, -0.3, 10, 0.7, 0.2, 200),
              (-3, 0.05, 50, 2.0, 1.0, 90), (0, 0.4, 30, 0.4, 0.01, 315)]
    rows, e_vbm, e_wm, e_xy = [], 0.0, 0.0, 0.0
    for k, (t0, u0, tE, s, q, al) in enumerate(models, 1):
        t = np.linspace(t0 - 2 * tE, t0 + 2 * tE, 60)
        m = mm.Model({"t_0": t0, "u_0": u0, "t_E": tE, "s": s, "q": q, "alpha": al})
        m.default_magnification_method = "point_source"  # VBM BinaryMag0, WM95 fallback
        A = m.get_magnification(t)
        y1, y2 = to_frame(t, t0, u0, tE, al)
        tr = mm.Trajectory(times=t, parameters=m.parameters)  # MulensModel's own positions
        e_xy = max(e_xy, np.max(np.hypot(tr.x - y1, tr.y - y2)))
        A_wm = wm95(s, q, y1, y2)  # independent of VBM
        for i in range(len(t)):
            e_vbm = max(e_vbm, abs(VBM.BinaryMag0(s, q, y1[i], y2[i]) / A[i] - 1))
            e_wm = max(e_wm, abs(A_wm[i] / A[i] - 1))
            rows.append((k, t0, u0, tE, s, q, al, t[i], A[i], y1[i], y2[i]))
    assert e_vbm < 1e-8, e_vbm
    print("binary_lc: BinaryMag0(y1,y2) vs MulensModel max rel diff %.2g; WM95 at (y1,y2) %.2g; "
          "|(y1,y2) - Trajectory (x,y)| %.2g" % (e_vbm, e_wm, e_xy))
    write("binary_lc.csv", [
        "MulensModel Model({t_0,u_0,t_E,s,q,alpha}) point_source light curves (alpha in degrees).",
        "y1,y2: source in BinaryMag0's frame, tau = (t - t0)/tE: y1 = -tau cos(alpha) + u0 sin(alpha),",
        "y2 = -tau sin(alpha) - u0 cos(alpha); BinaryMag0(s,q,y1,y2) matches A to %.1e rel," % e_vbm,
        "MulensModel's Witt & Mao 1995 solver at (y1,y2) to %.1e" % e_wm],
        ["model", "t0", "u0", "tE", "s", "q", "alpha_deg", "t", "A", "y1", "y2"], rows)


def pspl_lc():
    t0, u0, tE, rho = 2.0, 0.2, 15.0, 0.05
    t = np.linspace(t0 - 1.5 * tE, t0 + 1.5 * tE, 40)
    rows, e_mm, e_pspl = [], 0.0, 0.0
    m = mm.Model({"t_0": t0, "u_0": u0, "t_E": tE})
    A_ps = m.get_magnification(t)
    mf = mm.Model({"t_0": t0, "u_0": u0, "t_E": tE, "rho": rho})
    mf.set_magnification_methods([t0 - 3 * tE, "finite_source_uniform_WittMao94", t0 + 3 * tE])
    A_wm = mf.get_magnification(t)
    for i, ti in enumerate(t):
        u = np.hypot((ti - t0) / tE, u0)
        e_pspl = max(e_pspl, abs((u * u + 2) / (u * np.sqrt(u * u + 4)) / A_ps[i] - 1))
        rows.append(("pspl", t0, u0, tE, 0.0, ti, A_ps[i]))
    for i, ti in enumerate(t):
        A = a_unif(np.hypot((ti - t0) / tE, u0), rho)
        e_mm = max(e_mm, abs(A_wm[i] / A - 1))
        rows.append(("fspl", t0, u0, tE, rho, ti, A))
    print("pspl_lc: PSPL vs (u^2+2)/(u sqrt(u^2+4)) %.2g; FSPL quadrature vs MulensModel WM94 %.2g" % (e_pspl, e_mm))
    write("pspl_lc.csv", [
        "single lens: pspl = MulensModel Model({t_0,u_0,t_E}) (rho column 0), u = sqrt(((t-t0)/tE)^2 + u0^2);",
        "fspl = uniform source of radius rho: A from the quadrature of point_fs.csv (good to ~1e-13);",
        "MulensModel finite_source_uniform_WittMao94 (tabulated elliptic integrals) agrees to %.1e rel" % e_mm],
        ["model", "t0", "u0", "tE", "rho", "t", "A"], rows)


def binary_random():
    """Random binary lenses and source positions, far ones included (a light curve's
    baseline puts the source tens of Einstein radii out, where the polynomial's
    roots crowd the lenses): s in 0.3 .. 3 and q in 1e-5 .. 1 log-uniform; half the
    sources in |y| <= 1.5, a quarter at 1.5 .. 50 (log-uniform radius), a quarter
    within 0.05 of a lens. Kept where our own solve agrees with BinaryMag0 to 1e-8
    and the source is >= 1e-4 from a caustic."""
    rng = np.random.default_rng(20261127)
    rows, drop = [], dict(caustic=0, own=0)
    while len(rows) < 4000:
        s, q = 10 ** rng.uniform(np.log10(0.3), np.log10(3)), 10 ** rng.uniform(-5, 0)
        k = rng.uniform()
        if k < 0.5:
            y1, y2 = rng.uniform(-1.5, 1.5, 2)
        elif k < 0.75:
            r, a = 10 ** rng.uniform(np.log10(1.5), np.log10(50)), rng.uniform(0, 2 * np.pi)
            y1, y2 = r * np.cos(a), r * np.sin(a)
        else:
            y1, y2 = lens_x(s, q)[rng.integers(2)] + rng.normal(0, 0.05), rng.normal(0, 0.05)
        y1, y2 = float(y1), float(y2)
        A = VBM.BinaryMag0(s, q, y1, y2)
        n, A_own, mu_sum, parity = solve_images(s, q, y1, y2)
        if caustic_distance(s, q, y1, y2) < 1e-4:
            drop["caustic"] += 1
        elif abs(A_own / A - 1) >= 1e-8 or n not in (3, 5) or parity != -1:
            drop["own"] += 1
        else:
            rows.append((s, q, y1, y2, A, n))
    print("binary_random dropped:", drop)
    write("binary_random.csv", [
        "binary lens, point source, random: s in 0.3..3, q in 1e-5..1 (log-uniform); sources: half in",
        "|y| <= 1.5, a quarter at radius 1.5..50, a quarter within ~0.05 of a lens; A = VBMicrolensing",
        "BinaryMag0 (frame as binary_ps.csv), kept where our own image solve agrees to 1e-8 and the",
        "source is >= 1e-4 from a caustic; dropped: %d near a caustic, %d disagreeing" %
        (drop["caustic"], drop["own"])], ["s", "q", "y1", "y2", "A", "n_images"], rows)


def caustics_box():
    """VBMicrolensing's Caustics(s, q): the number of closed caustics and their
    bounding box, over the (s, q) grid and across the topology boundaries of the
    equal-mass binary (s = 1/sqrt 2 and 2). NPcrit = 20000 points per critical curve:
    at its default (200) the sampling misses cusp tips by up to 3e-4 of the box."""
    rows = []
    VBM.NPcrit = 20000
    for s in [0.3, 0.5, 0.7, 0.72, 0.8, 1.0, 1.2, 1.98, 2.02, 3.0]:
        for q in [1e-5, 1e-3, 0.1, 1.0]:
            c = VBM.Caustics(s, q)
            x = np.concatenate([np.asarray(a[0]) for a in c])
            y = np.concatenate([np.asarray(a[1]) for a in c])
            rows.append((s, q, len(c), x.min(), x.max(), y.min(), y.max()))
    VBM.NPcrit = 200
    write("caustics_box.csv", [
        "binary-lens caustics: VBMicrolensing Caustics(s, q) (frame as binary_ps.csv), NPcrit = 20000:",
        "the number of closed caustics and the box of all their points"],
        ["s", "q", "n_caustics", "x_min", "x_max", "y_min", "y_max"], rows)


def binary_fs_lc():
    """A finite source crossing a binary caustic, from VBMicrolensing's BinaryMag2
    (RelTol = Tol = 1e-5): s = 1.1, q = 0.01, t0 = 0, u0 = 0.1, tE = 10 d, alpha = 90
    deg, rho = 2e-3, epochs -1 .. 1 d, so that the source runs along y1 = 0.1 from
    y2 = 0.1 to -0.1 and crosses both folds of the resonant caustic; uniform and
    linearly limb-darkened (a1 = 0.5) sources."""
    s, q, t0, u0, tE, alpha, rho = 1.1, 0.01, 0.0, 0.1, 10.0, 90.0, 2e-3
    VBM.RelTol, VBM.Tol = 1e-5, 1e-5
    rows = []
    for t in np.linspace(-1.0, 1.0, 201):
        y1, y2 = to_frame(t, t0, u0, tE, alpha)
        VBM.a1 = 0.0
        Au = VBM.BinaryMag2(s, q, y1, y2, rho)
        VBM.a1 = 0.5
        Ald = VBM.BinaryMag2(s, q, y1, y2, rho)
        rows.append((t, y1, y2, Au, Ald))
    VBM.a1 = 0.0
    write("binary_fs_lc.csv", [
        "finite-source binary light curve: VBMicrolensing BinaryMag2 (RelTol = Tol = 1e-5), frame as",
        "binary_ps.csv; s = 1.1, q = 0.01, t0 = 0, u0 = 0.1, tE = 10, alpha = 90 deg, rho = 0.002;",
        "A_uniform: a1 = 0; A_ld: linear limb darkening a1 = 0.5"],
        ["t", "y1", "y2", "A_uniform", "A_ld"], rows)


def fsbl_lc():
    """A finite source of rho = 2e-3 along a long trajectory past a resonant caustic
    (s = 1.1, q = 0.01; t0 = 0, u0 = 0.05, tE = 10 d, alpha = 60 deg, t = -15 .. 15 d):
    VBMicrolensing's BinaryMag2 (RelTol = Tol = 1e-6), uniform and a1 = 0.5, and the
    source's distance from the nearest caustic (Einstein radii), so that a test can tell
    the epochs near the caustic (read from a map) from those far off (the hexadecapole or
    the point source)."""
    s, q, t0, u0, tE, alpha, rho = 1.1, 0.01, 0.0, 0.05, 10.0, 60.0, 2e-3
    VBM.RelTol, VBM.Tol = 1e-6, 1e-6
    rows = []
    t = np.concatenate([np.linspace(-15.0, -1.0, 141), np.linspace(-1.0, 1.0, 201)[1:-1],
                        np.linspace(1.0, 15.0, 141)])
    for ti in t:
        y1, y2 = to_frame(ti, t0, u0, tE, alpha)
        VBM.a1 = 0.0
        Au = VBM.BinaryMag2(s, q, y1, y2, rho)
        VBM.a1 = 0.5
        Ald = VBM.BinaryMag2(s, q, y1, y2, rho)
        rows.append((ti, y1, y2, Au, Ald, caustic_distance(s, q, y1, y2)))
    VBM.a1 = 0.0
    write("fsbl_lc.csv", [
        "finite-source binary light curve: VBMicrolensing BinaryMag2 (RelTol = Tol = 1e-6), frame",
        "as binary_ps.csv; s = 1.1, q = 0.01, t0 = 0, u0 = 0.05, tE = 10, alpha = 60 deg,",
        "rho = 0.002; A_uniform: a1 = 0; A_ld: a1 = 0.5; d_caustic: distance to the nearest caustic"],
        ["t", "y1", "y2", "A_uniform", "A_ld", "d_caustic"], rows)


def fsbl_event():
    """A giant source (rho = 0.02, uniform) crossing the resonant caustic of s = 1.1,
    q = 0.01: t0 = 8000, u0 = 0.05, tE = 20 d, alpha = 60 deg; I band every 0.2 d within
    4 d of t0 and every 1 d out to 50 d, source flux fraction 0.8 of an 18 mag baseline
    (zero point 22), errors 0.01 mag, Gaussian noise (numpy seed 12). A from BinaryMag2
    (RelTol = Tol = 1e-6); the truth's chi^2 (flux space, source and blend fitted) is
    written in the comments for the likelihood's check."""
    s, q, t0, u0, tE, alpha, rho = 1.1, 0.01, 8000.0, 0.05, 20.0, 60.0, 0.02
    VBM.RelTol, VBM.Tol, VBM.a1 = 1e-6, 1e-6, 0.0
    rng = np.random.default_rng(12)
    t = np.unique(np.concatenate([np.arange(t0 - 50.0, t0 + 50.01, 1.0),
                                  np.arange(t0 - 4.0, t0 + 4.001, 0.2)]))
    A = np.array([VBM.BinaryMag2(s, q, *to_frame(ti, t0, u0, tE, alpha), rho) for ti in t])
    F0 = 10 ** (0.4 * (22.0 - 18.0))
    F = F0 * (0.8 * A + 0.2)
    err = np.full(t.size, 0.01)
    mag = 22.0 - 2.5 * np.log10(F) + err * rng.standard_normal(t.size)
    Fd = 10 ** (0.4 * (22.0 - mag))
    sF = 0.4 * np.log(10.0) * Fd * err
    X = np.vstack([A, np.ones_like(A)]).T / sF[:, None]
    (fs, fb), *_ = np.linalg.lstsq(X, Fd / sF, rcond=None)
    chi2 = float(np.sum(((Fd - fs * A - fb) / sF) ** 2))
    write("fsbl_event.csv", [
        "a finite source crossing a resonant caustic: s = 1.1, q = 0.01, t0 = 8000, u0 = 0.05,",
        "tE = 20, alpha = 60 deg, rho = 0.02 (uniform), VBMicrolensing BinaryMag2 (1e-6);",
        "I magnitudes (zero point 22), source 0.8 of an 18 mag baseline, errors 0.01 mag, noise",
        "chi2_truth = %.10g (flux space; fs = %.10g, fb = %.10g)" % (chi2, fs, fb)],
        ["time", "mag", "err"], [(float(a), float(b), float(c)) for a, b, c in zip(t, mag, err)])


def fspl_fit(sets, p, rho):
    """chi^2 and fluxes of a uniform finite source on the datasets, fitted as MulensModel
    does (flux space, F = fs A + fb by weighted least squares per dataset), with A from
    a_unif: MulensModel 3.12's finite_source_uniform_WittMao94 is off by up to 3e-4 at
    u/rho ~ 2.5 and its Gould94_direct by 1e-6, where a_unif is good to 1e-13."""
    chi2, fl = 0.0, []
    for d in sets:
        tau = (d.time - p["t_0"]) / p["t_E"]
        A = np.array([a_unif(u, rho) for u in np.hypot(tau, p["u_0"])])
        F = 10 ** (0.4 * (22.0 - d.mag))
        sF = d.err_mag * F * 0.4 * np.log(10.0)
        X = np.vstack([A, np.ones_like(A)]).T / sF[:, None]
        (fs, fb), *_ = np.linalg.lstsq(X, F / sF, rcond=None)
        chi2 += float(np.sum(((F - fs * A - fb) / sF) ** 2))
        fl += [float(fs), float(fb)]
    return chi2, fl


def phot_event():
    """A planetary caustic-crossing event in two passbands (I every 0.1 d near the peak and
    every 0.5 d elsewhere, V every 1 d), magnitudes with zero point 22 and Gaussian noise
    (numpy seed 2026): the data for the photometric likelihood's checks.  Then
    MulensModel's chi^2 (flux space, source and blend flux fitted per dataset) and fluxes for
    a set of models of each kind at and around the truth: phot_chi2.csv. The finite-source
    rows fit the same way with a_unif's magnifications (fspl_fit says why)."""
    truth = dict(t_0=7000.0, u_0=0.05, t_E=25.0, s=1.2, q=3e-3, alpha=30.0)
    rng = np.random.default_rng(2026)
    tI = np.concatenate([np.arange(6920.0, 6990.0, 0.5), np.arange(6990.0, 7010.0, 0.1),
                         np.arange(7010.0, 7080.0, 0.5)])
    tV = np.arange(6921.3, 7080.0, 1.0)
    model = mm.Model(truth)
    rows, sets = [], []
    for band, t, base, fs_frac, e0 in (("I", tI, 18.5, 0.7, 0.008), ("V", tV, 19.8, 0.5, 0.02)):
        A = model.get_magnification(t)
        F0 = 10 ** (0.4 * (22.0 - base))
        F = F0 * (fs_frac * A + 1.0 - fs_frac)
        mag = 22.0 - 2.5 * np.log10(F)
        err = e0 * (1.0 + 0.5 * rng.random(t.size))
        mag = mag + err * rng.standard_normal(t.size)
        sets.append(mm.MulensData(data_list=[t, mag, err], phot_fmt="mag", bandpass=band))
        rows += [(float(a), float(b), float(c), band) for a, b, c in zip(t, mag, err)]
    rows.sort(key=lambda r: r[0])
    write("phot_event.csv", [
        "a planetary caustic-crossing event in I and V (magnitudes, zero point 22): binary",
        "t0 = 7000, u0 = 0.05, tE = 25, s = 1.2, q = 0.003, alpha = 30 deg (MulensModel's",
        "convention), point source; I: source fraction 0.7 of 18.5 mag baseline, V: 0.5 of 19.8"],
        ["time", "mag", "err", "band"], rows)
    out = []
    rng2 = np.random.default_rng(7)
    for k in range(12):
        jig = 1.0 + (0.0 if k == 0 else 0.02 * rng2.standard_normal())
        for kind in ("pspl", "fspl", "binary"):
            p = dict(t_0=7000.0 + (0 if k == 0 else 0.3 * rng2.standard_normal()),
                     u_0=0.05 * jig, t_E=25.0 * jig)
            rho, s, q, alpha = 0.0, 0.0, 0.0, 0.0
            if kind == "fspl":
                rho = p["rho"] = 0.02 * jig
            if kind == "binary":
                s, q, alpha = 1.2 * jig, 3e-3 * jig, 30.0 + (0 if k == 0 else rng2.standard_normal())
                p.update(s=s, q=q, alpha=alpha)
            if kind == "fspl":  # see the docstring: our own quadrature, not MulensModel's
                chi2, fl = fspl_fit(sets, p, rho)
            else:
                ev = mm.Event(datasets=sets, model=mm.Model(p))
                chi2 = ev.get_chi2()
                fl = []
                for i in range(2):
                    fsb = ev.get_flux_for_dataset(i)
                    fl += [float(np.sum(fsb[0])), float(fsb[1])]
            out.append((kind, p["t_0"], p["u_0"], p["t_E"], rho, s, q, alpha, chi2) + tuple(fl))
    write("phot_chi2.csv", [
        "MulensModel Event.get_chi2() (flux space; source and blend flux fitted per dataset)",
        "on phot_event.csv, datasets I then V; fspl: the same fit with a_unif's quadrature",
        "(MulensModel's own finite-source methods are good to 3e-4 and 1e-6 only);",
        "binary: point source; fs_I,fb_I,fs_V,fb_V the fitted fluxes (zero point 22)"],
        ["model", "t0", "u0", "tE", "rho", "s", "q", "alpha", "chi2", "fs_I", "fb_I", "fs_V",
         "fb_V"], out)


def parallax_lc():
    """Annual parallax: MulensModel 3's Model with pi_E_N, pi_E_E and t_0_par at an event in
    the bulge (its coordinates as ICRS degrees), times as full BJD (TDB): two point lenses
    (t_0_par at t_0 and 20 days off it, one whose parallax turns the path through a year) and
    a binary lens with a point source."""
    from astropy.coordinates import SkyCoord
    ra, dec = 269.7595833, -29.0708889  # 17:59:02.3 -29:04:15.2
    coords = SkyCoord(ra=ra, dec=dec, unit="deg", frame="icrs")
    models = [("pspl", 2456836.2, 0.3, 40.0, 0, 0, 0, 0.3, -0.2, 2456836.2),
              ("pspl", 2456836.2, -0.1, 120.0, 0, 0, 0, 0.05, 0.6, 2456816.0),
              ("binary", 2457201.5, 0.08, 30.0, 1.15, 4e-3, 35.0, -0.25, 0.1, 2457200.0)]
    rows = []
    for kind, t0, u0, tE, s, q, al, pn, pe, tp in models:
        t = np.concatenate([np.linspace(t0 - 2 * tE, t0 + 2 * tE, 50), t0 + np.array([-300, 200, 365.25])])
        p = {"t_0": t0, "u_0": u0, "t_E": tE, "pi_E_N": pn, "pi_E_E": pe, "t_0_par": tp}
        if kind == "binary":
            p.update(s=s, q=q, alpha=al)
        m = mm.Model(p, coords=coords)
        if kind == "binary":
            m.default_magnification_method = "point_source"
        A = m.get_magnification(t)
        for ti, Ai in zip(t, A):
            rows.append((kind, t0, u0, tE, s, q, al, pn, pe, tp, ra, dec, ti, Ai))
    write("parallax_lc.csv", [
        "MulensModel Model({t_0,u_0,t_E[,s,q,alpha],pi_E_N,pi_E_E,t_0_par}, coords) magnifications",
        "with annual parallax (astropy's get_body_barycentric, ERFA epv00), t full BJD (TDB);",
        "binary: point source (alpha in degrees); ra, dec in degrees (ICRS)"],
        ["model", "t0", "u0", "tE", "s", "q", "alpha", "pi_E_N", "pi_E_E", "t0_par", "ra", "dec",
         "t", "A"], rows)


def binsrc_lc():
    """Two point sources behind one point lens: MulensModel 3's Model with t_0_1, u_0_1,
    t_0_2, u_0_2, t_E and get_magnification(source_flux_ratio = q_flux), the effective
    magnification (A_1 + q_flux A_2) / (1 + q_flux); without parallax (pi_E = 0 here), and
    with annual parallax at the bulge event of parallax_lc, t_0_par at t_0_1 and 20 days
    off it."""
    from astropy.coordinates import SkyCoord
    ra, dec = 269.7595833, -29.0708889
    coords = SkyCoord(ra=ra, dec=dec, unit="deg", frame="icrs")
    models = [(2456836.2, 0.2, 2456846.0, 0.03, 25.0, 0.4, 0.0, 0.0, 2456836.2),
              (2456836.2, 0.2, 2456846.0, 0.03, 25.0, 0.4, 0.3, -0.2, 2456836.2),
              (2457201.5, -0.35, 2457190.0, -0.08, 60.0, 2.5, 0.05, 0.6, 2457181.5)]
    rows = []
    for t0, u0, t02, u02, tE, qf, pn, pe, tp in models:
        t = np.concatenate([np.linspace(min(t0, t02) - 2 * tE, max(t0, t02) + 2 * tE, 60),
                            t0 + np.array([-300, 200, 365.25])])
        p = {"t_0_1": t0, "u_0_1": u0, "t_0_2": t02, "u_0_2": u02, "t_E": tE}
        if pn or pe:
            p.update(pi_E_N=pn, pi_E_E=pe, t_0_par=tp)
            m = mm.Model(p, coords=coords)
        else:
            m = mm.Model(p)
        A = m.get_magnification(t, source_flux_ratio=qf)
        for ti, Ai in zip(t, A):
            rows.append((t0, u0, t02, u02, tE, qf, pn, pe, tp, ra, dec, ti, Ai))
    write("binsrc_lc.csv", [
        "MulensModel Model({t_0_1,u_0_1,t_0_2,u_0_2,t_E[,pi_E_N,pi_E_E,t_0_par]}, coords)",
        "get_magnification(t, source_flux_ratio=q_flux): two point sources, one point lens;",
        "pi_E = 0: no parallax; t full BJD (TDB); ra, dec in degrees (ICRS)"],
        ["t0", "u0", "t0_2", "u0_2", "tE", "q_flux", "pi_E_N", "pi_E_E", "t0_par", "ra", "dec",
         "t", "A"], rows)


def xallarap_lc():
    """Circular xallarap: MulensModel 3's Model with xi_period, xi_semimajor_axis,
    xi_Omega_node, xi_inclination and xi_argument_of_latitude_reference, t_0_xi left to its
    default (t_0): a point lens without and with annual parallax, and a binary lens (point
    source) with both, at parallax_lc's bulge event."""
    from astropy.coordinates import SkyCoord
    ra, dec = 269.7595833, -29.0708889
    coords = SkyCoord(ra=ra, dec=dec, unit="deg", frame="icrs")
    models = [("pspl", 2456836.2, 0.3, 40.0, 0, 0, 0, 25.0, 0.2, 40.0, 60.0, 30.0, 0, 0, 0),
              ("pspl", 2456836.2, -0.1, 80.0, 0, 0, 0, 140.0, 0.05, -120.0, 10.0, 200.0,
               0.2, -0.1, 2456840.0),
              ("binary", 2457201.5, 0.08, 30.0, 1.15, 4e-3, 35.0, 11.0, 0.02, 75.0, 135.0,
               -40.0, -0.25, 0.1, 2457200.0)]
    rows = []
    for kind, t0, u0, tE, s, q, al, P, a, Om, inc, u, pn, pe, tp in models:
        t = np.concatenate([np.linspace(t0 - 2 * tE, t0 + 2 * tE, 60), t0 + np.array([-300, 200])])
        p = {"t_0": t0, "u_0": u0, "t_E": tE, "xi_period": P, "xi_semimajor_axis": a,
             "xi_Omega_node": Om, "xi_inclination": inc, "xi_argument_of_latitude_reference": u}
        if pn or pe:
            p.update(pi_E_N=pn, pi_E_E=pe, t_0_par=tp)
        if kind == "binary":
            p.update(s=s, q=q, alpha=al)
        m = mm.Model(p, coords=coords) if (pn or pe) else mm.Model(p)
        if kind == "binary":
            m.default_magnification_method = "point_source"
        A = m.get_magnification(t)
        for ti, Ai in zip(t, A):
            rows.append((kind, t0, u0, tE, s, q, al, P, a, Om, inc, u, pn, pe, tp, ra, dec, ti, Ai))
    write("xallarap_lc.csv", [
        "MulensModel Model({t_0,u_0,t_E[,s,q,alpha],xi_period,xi_semimajor_axis,xi_Omega_node,",
        "xi_inclination,xi_argument_of_latitude_reference[,pi_E_N,pi_E_E,t_0_par]}) magnifications:",
        "circular xallarap, t_0_xi = t_0; pi_E = 0: no parallax; t full BJD (TDB); binary: point",
        "source (alpha in degrees); ra, dec in degrees (ICRS)"],
        ["model", "t0", "u0", "tE", "s", "q", "alpha", "xi_period", "xi_semimajor_axis",
         "xi_Omega_node", "xi_inclination", "xi_argument_of_latitude_reference", "pi_E_N",
         "pi_E_E", "t0_par", "ra", "dec", "t", "A"], rows)


def orbital_lc():
    """The lens's linear orbital motion: MulensModel 3's Model with ds_dt (1/yr) and
    dalpha_dt (deg/yr), point source, through the reference's event coordinates: t_0_kep
    left to its default (t_0) and 15 days off it, and once with annual parallax as well
    (pi_E = 0 and t0_par = 0 in a row mean no parallax)."""
    from astropy.coordinates import SkyCoord
    ra, dec = 269.7595833, -29.0708889
    coords = SkyCoord(ra=ra, dec=dec, unit="deg", frame="icrs")
    models = [(2457201.5, 0.08, 30.0, 1.15, 4e-3, 35.0, 0.6, 40.0, None, 0.0, 0.0, None),
              (2457201.5, -0.05, 45.0, 0.85, 0.3, 200.0, -0.4, -90.0, 2457186.5, 0.0, 0.0, None),
              (2457201.5, 0.12, 25.0, 1.05, 0.02, 120.0, 0.3, 25.0, 2457190.0, -0.25, 0.1,
               2457200.0)]
    rows = []
    for t0, u0, tE, s, q, al, dsdt, dadt, tk, pn, pe, tp in models:
        t = np.concatenate([np.linspace(t0 - 2 * tE, t0 + 2 * tE, 80), t0 + np.array([-120, 90])])
        p = {"t_0": t0, "u_0": u0, "t_E": tE, "s": s, "q": q, "alpha": al, "ds_dt": dsdt,
             "dalpha_dt": dadt}
        if tk is not None:
            p["t_0_kep"] = tk
        if tp is not None:
            p.update(pi_E_N=pn, pi_E_E=pe, t_0_par=tp)
        m = mm.Model(p, coords=coords) if tp is not None else mm.Model(p)
        m.default_magnification_method = "point_source"
        A = m.get_magnification(t)
        for ti, Ai in zip(t, A):
            rows.append((t0, u0, tE, s, q, al, dsdt, dadt, t0 if tk is None else tk, pn, pe,
                         0.0 if tp is None else tp, ra, dec, ti, Ai))
    write("orbital_lc.csv", [
        "MulensModel Model({t_0,u_0,t_E,s,q,alpha,ds_dt,dalpha_dt[,t_0_kep][,pi_E_N,pi_E_E,t_0_par]})",
        "point-source binary magnifications with the lens's linear orbital motion (ds_dt per",
        "year, dalpha_dt degrees per year), t full BJD (TDB); t0_par = 0: no parallax"],
        ["t0", "u0", "tE", "s", "q", "alpha", "ds_dt", "dalpha_dt", "t0_kep", "pi_E_N", "pi_E_E",
         "t0_par", "ra", "dec", "t", "A"], rows)


def kepler_lc():
    """The lens's Keplerian orbit: MulensModel 3's Model with ds_dt, dalpha_dt, s_z and
    nothing more (circular: it derives ds_z_dt = -ds_dt s / s_z) or ds_z_dt and a_s
    (elliptical), point source, t_0_kep at t_0 and off it,
    once with annual parallax. a_s = 0 in a row marks a circular orbit. The circular rows
    have ds_dt s_z < 0 (ds_z_dt > 0): MulensModel 3.12's circular orbit with ds_z_dt < 0 does
    not pass through alpha at t_0_kep (alpha(t_0_kep) = 25.25 for alpha = 35 at s = 1.15,
    s_z = 0.3, ds_dt = 0.6, dalpha_dt = 40), so those are checked against our own
    elliptical orbit with a_s = 1 instead (test_ml_likelihood).
    MulensModel 3.12's Keplerian alpha(t) is alpha + atan2(y, x) of the secondary's sky
    position, which turns at -dalpha_dt at t_0_kep while its linear motion turns at
    +dalpha_dt (measured: -39.9999991 deg/yr for dalpha_dt = 40). starling keeps the linear
    sign for every kind (alpha - atan2(y, x)), which is MulensModel's curve at -dalpha_dt:
    so MulensModel is called with dalpha_dt negated and the row holds starling's value.
    The ellipses all have r0 . v0 > 0: MulensModel 3.12 takes the eccentric anomaly at
    t_0_kep from arccos, in [0, pi], so an ellipse whose secondary approaches periapsis
    there (r0 . v0 < 0) does not pass through s and alpha at t_0_kep (s = 0.85, alpha = 200,
    s_z = 0.2, ds_dt = -0.9, ds_z_dt = -1.1, a_s = 0.8 gives 0.799 and 277.7); those are
    checked in test_ml_likelihood on their own (keplerian_orbit_passes_through_s_and_alpha)."""
    from astropy.coordinates import SkyCoord
    ra, dec = 269.7595833, -29.0708889
    coords = SkyCoord(ra=ra, dec=dec, unit="deg", frame="icrs")
    # t0, u0, tE, s, q, alpha, ds_dt, dalpha_dt, s_z, ds_z_dt (elliptical), a_s, t0_kep,
    # pi_E_N, pi_E_E, t0_par
    models = [(2457201.5, 0.08, 30.0, 1.15, 4e-3, 35.0, 0.6, 40.0, -0.3, 0, 0, None, 0, 0, None),
              (2457201.5, -0.05, 45.0, 0.85, 0.3, 200.0, -0.4, -90.0, 0.5, 0, 0, 2457186.5,
               0, 0, None),
              (2457201.5, 0.08, 30.0, 1.15, 4e-3, 35.0, 0.6, 40.0, -0.4, 0.5, 1.3, 2457190.0,
               0, 0, None),
              (2457201.5, -0.05, 45.0, 0.85, 0.3, 200.0, 0.9, -150.0, 0.2, -1.1, 0.8, None,
               0, 0, None),
              (2457201.5, 0.12, 25.0, 1.05, 0.02, 120.0, 0.8, 120.0, 0.6, -0.9, 2.5, 2457195.0,
               -0.25, 0.1, 2457200.0)]
    rows = []
    for t0, u0, tE, s, q, al, dsdt, dadt, sz, dszdt, a_s, tk, pn, pe, tp in models:
        t = np.concatenate([np.linspace(t0 - 2 * tE, t0 + 2 * tE, 80), t0 + np.array([-120, 90])])
        p = {"t_0": t0, "u_0": u0, "t_E": tE, "s": s, "q": q, "alpha": al, "ds_dt": dsdt,
             "dalpha_dt": dadt, "s_z": sz}
        if a_s:
            p.update(ds_z_dt=dszdt, a_s=a_s)
        if tk is not None:
            p["t_0_kep"] = tk
        if tp is not None:
            p.update(pi_E_N=pn, pi_E_E=pe, t_0_par=tp)
        p["dalpha_dt"] = -dadt  # see the docstring
        m = mm.Model(p, coords=coords) if tp is not None else mm.Model(p)
        m.default_magnification_method = "point_source"
        if not a_s:
            assert m.parameters.ds_z_dt > 0  # see the docstring
        A = m.get_magnification(t)
        for ti, Ai in zip(t, A):
            rows.append((t0, u0, tE, s, q, al, dsdt, dadt, sz, dszdt, a_s,
                         t0 if tk is None else tk, pn, pe, 0.0 if tp is None else tp, ra, dec,
                         ti, Ai))
    write("kepler_lc.csv", [
        "MulensModel Model({t_0,u_0,t_E,s,q,alpha,ds_dt,dalpha_dt,s_z[,ds_z_dt,a_s][,t_0_kep]",
        "[,pi_E_N,pi_E_E,t_0_par]}): point-source binary magnifications with the lens on a",
        "Keplerian orbit; a_s = 0: circular (ds_z_dt = -ds_dt s / s_z, not a column); t full",
        "BJD (TDB); t0_par = 0: no parallax"],
        ["t0", "u0", "tE", "s", "q", "alpha", "ds_dt", "dalpha_dt", "s_z", "ds_z_dt", "a_s",
         "t0_kep", "pi_E_N", "pi_E_E", "t0_par", "ra", "dec", "t", "A"], rows)


def satellite_lc():
    """Satellite parallax: MulensModel 3's Model with pi_E_N, pi_E_E and t_0_par, seen from
    the Earth and from Spitzer through MulensModel's own Spitzer ephemeris (JPL Horizons,
    daily, 2013-2015), which is written beside as spitzer_eph.csv (JD, RA and Dec in
    degrees, distance in AU: MulensModel's reader's numbers): a point lens and a binary
    (point source) in the 2015 bulge season."""
    from astropy.coordinates import SkyCoord
    eph = os.path.join(os.path.dirname(mm.__file__), "data", "ephemeris_files",
                       "Spitzer_ephemeris_01.dat")
    hz = mm.horizons.Horizons(eph)
    x, y, z = hz.xyz.x.to_value("au"), hz.xyz.y.to_value("au"), hz.xyz.z.to_value("au")
    dist = np.sqrt(x * x + y * y + z * z)
    ra_s = np.degrees(np.arctan2(y, x)) % 360.0
    dec_s = np.degrees(np.arctan2(z, np.hypot(x, y)))
    write("spitzer_eph.csv", [
        "MulensModel 3.12's data/ephemeris_files/Spitzer_ephemeris_01.dat (JPL Horizons, Spitzer",
        "seen from the Earth's centre, daily) read by MulensModel.horizons.Horizons: JD (TDB, as",
        "that reader makes it from Horizons' UT), RA and Dec (degrees, ICRF), distance (AU)"],
        ["time", "ra", "dec", "distance"],
        [(t, a, d, r) for t, a, d, r in zip(hz.time, ra_s, dec_s, dist)])
    ra, dec = 269.7595833, -29.0708889
    coords = SkyCoord(ra=ra, dec=dec, unit="deg", frame="icrs")
    sat = mm.SatelliteSkyCoord(ephemerides_file=eph)
    models = [("pspl", 2457200.3, 0.2, 35.0, 0, 0, 0, 0.25, -0.15, 2457200.0),
              ("binary", 2457215.5, 0.08, 30.0, 1.15, 4e-3, 35.0, -0.2, 0.1, 2457215.0)]
    rows = []
    for kind, t0, u0, tE, s, q, al, pn, pe, tp in models:
        t = np.linspace(t0 - 1.5 * tE, t0 + 1.5 * tE, 61)
        p = {"t_0": t0, "u_0": u0, "t_E": tE, "pi_E_N": pn, "pi_E_E": pe, "t_0_par": tp}
        if kind == "binary":
            p.update(s=s, q=q, alpha=al)
        m = mm.Model(p, coords=coords)
        if kind == "binary":
            m.default_magnification_method = "point_source"
        for space in (0, 1):
            A = (m.get_magnification(t, satellite_skycoord=sat.get_satellite_coords(t)) if space
                 else m.get_magnification(t))
            for ti, Ai in zip(t, A):
                rows.append((kind, t0, u0, tE, s, q, al, pn, pe, tp, ra, dec, space, ti, Ai))
    write("satellite_lc.csv", [
        "MulensModel Model({t_0,u_0,t_E[,s,q,alpha],pi_E_N,pi_E_E,t_0_par}, coords) magnifications",
        "with annual parallax from the Earth (space = 0) and from Spitzer (space = 1, its",
        "ephemeris in spitzer_eph.csv), t full JD; binary: point source"],
        ["model", "t0", "u0", "tE", "s", "q", "alpha", "pi_E_N", "pi_E_E", "t0_par", "ra", "dec",
         "space", "t", "A"], rows)


def multi_ps():
    """Point sources behind 3 and 4 point lenses: VBMicrolensing's MultiMag0 after
    SetLensGeometry (positions in Einstein radii of the total mass, masses as fractions).
    Five lens sets (a planetary triple, a stellar triple with a wide companion, a compact
    equal-mass triple, two quadruples); per set 400 sources uniform in a box around the
    caustics (grown by 0.3) and 100 further out, kept 2e-3 or more from every caustic point
    (VBMicrolensing's Multicaustics), where the magnification is finite and smooth."""
    vbm = VBMicrolensing.VBMicrolensing()
    rng = np.random.default_rng(20261207)
    sets = [[(0.0, 0.0, 0.998), (1.05, 0.02, 1.5e-3), (-0.3, 0.9, 5e-4)],
            [(-0.2, 0.0, 0.6), (0.6, 0.1, 0.3), (0.1, 1.8, 0.1)],
            [(-0.35, -0.2, 1 / 3), (0.35, -0.2, 1 / 3), (0.0, 0.4, 1 / 3)],
            [(0.0, 0.0, 0.7), (0.9, 0.0, 0.1), (-0.4, 0.7, 0.15), (0.2, -1.1, 0.05)],
            [(-0.5, 0.0, 0.4), (0.5, 0.0, 0.3), (0.0, 0.6, 0.2), (0.1, -0.5, 0.1)]]
    rows = []
    for c, lenses in enumerate(sets):
        pr = [v for l in lenses for v in l]
        vbm.SetLensGeometry(pr)
        cau = vbm.Multicaustics()
        cx = np.concatenate([np.asarray(k[0]) for k in cau])
        cy = np.concatenate([np.asarray(k[1]) for k in cau])
        x0, x1, y0, y1 = cx.min() - 0.3, cx.max() + 0.3, cy.min() - 0.3, cy.max() + 0.3
        pts = [(rng.uniform(x0, x1), rng.uniform(y0, y1)) for _ in range(400)]
        pts += [tuple(rng.uniform(-3, 3, 2)) for _ in range(100)]
        for ys in pts:
            if np.min(np.hypot(cx - ys[0], cy - ys[1])) < 2e-3:
                continue
            vbm.SetLensGeometry(pr)
            A = vbm.MultiMag0(ys[0], ys[1])
            flat = pr + [0.0, 0.0, 0.0] * (4 - len(lenses))
            rows.append([c, len(lenses)] + flat + [ys[0], ys[1], A])
    cols = ["config", "n"] + ["%s%d" % (k, i) for i in range(1, 5) for k in "xym"] + \
        ["y1", "y2", "A"]
    write("multi_ps.csv", [
        "VBMicrolensing MultiMag0: point sources behind 3 and 4 point lenses (x, y in Einstein",
        "radii of the total mass, m the mass fractions; unused lenses are zeros); sources kept",
        "2e-3 or more from VBMicrolensing's Multicaustics points"], cols, rows)


def ld_disks(s, q, y1, y2, rho, a1, nodes=48):
    """The linearly limb-darkened source as uniform disks: I = (1 - a1) + a1 sqrt(1 -
    r^2/rho^2), and the square root's light is the disks of radius rho sin(theta) with
    weight sin^3(theta) d theta over [0, pi/2] (Gauss-Legendre), so A = ((1 - a1) A_u(rho)
    + a1 int sin^3 A_u(rho sin) d theta) / (1 - a1/3), A_u from BinaryMag2 with a1 = 0."""
    VBM.a1 = 0.0
    Au = VBM.BinaryMag2(s, q, y1, y2, rho)
    if a1 == 0.0:
        return Au
    x, w = np.polynomial.legendre.leggauss(nodes)
    th, w = (x + 1) * np.pi / 4, w * np.pi / 4
    inner = sum(wi * np.sin(t) ** 3 * VBM.BinaryMag2(s, q, y1, y2, rho * np.sin(t))
                for t, wi in zip(th, w))
    return ((1 - a1) * Au + a1 * inner) / (1 - a1 / 3)


def fsbl_dynamic():
    """Finite sources with s and q free, for the dynamic engine: VBMicrolensing's
    BinaryMag2 at Tol = RelTol = 1e-7, uniform (a1 = 0) and a1 = 0.5 (ld_disks). Three kinds of
    place, over 12 lenses (s from 0.6 to 1.8, q from 1e-4 to 1; rho = 1e-3, 3e-3, 1e-2):
    kind 0, the centre on a caustic point; kind 1, the edge grazing a caustic (the
    centre rho (1 + e) from a caustic point in a random direction, e in +-0.05, +-0.01,
    +-0.002), kind 2, 1 to 10 rho from the caustic; caustic points at random along the
    caustics and at their extremes in y1 and y2 (cusps, most of them). Kind 3: the
    issue's fold case, s = 1, q = 1e-3, rho = 1e-3, u0 = 0.005, alpha = 0, tE = 20 d,
    t = 0.184 .. 0.192 d, where a map pixel of rho/10 read 3.9 % high.

    The limb-darkened source is the uniform disks' sum (ld_disks), not BinaryMag2 with
    a1 set: near a central caustic that one moves with its tolerance (s = 1.5, q = 1e-3,
    rho = 1e-3, y = (-5.894e-4, 1.2406e-3), a1 = 0.5: 1022.9 at Tol 1e-4, 1014.0 at 1e-7,
    1025.5 at 1e-9, and depending on the calls before it), where the sum of its uniform
    disks holds at 1014.7 +- 0.05 for 24 to 96 nodes."""
    rng = np.random.default_rng(20261207)
    VBM.RelTol, VBM.Tol = 1e-7, 1e-7
    lenses = [(0.6, 1e-3), (0.8, 0.01), (1.0, 1e-4), (1.0, 1e-3), (1.1, 0.01), (1.2, 0.1),
              (1.5, 1e-3), (1.8, 0.02), (0.9, 0.5), (1.0, 1.0), (1.3, 0.3), (0.7, 0.2)]
    rows = []
    for li, (s, q) in enumerate(lenses):
        rho = [1e-3, 3e-3, 1e-2][li % 3]
        pts = []
        for cx, cy in VBM.Caustics(s, q):
            cx, cy = np.array(cx), np.array(cy)
            for k in [np.argmin(cx), np.argmax(cx), np.argmin(cy), np.argmax(cy)]:
                pts.append((cx[k], cy[k]))
            for k in rng.integers(0, len(cx), 3):
                pts.append((cx[k], cy[k]))
        for px, py in pts:
            places = [(0, px, py)]
            for e in [0.05, -0.05, 0.01, -0.01, 0.002, -0.002]:
                a = rng.uniform(0, 2 * np.pi)
                places.append((1, px + rho * (1 + e) * np.cos(a), py + rho * (1 + e) * np.sin(a)))
            a, r = rng.uniform(0, 2 * np.pi), rng.uniform(1, 10) * rho
            places.append((2, px + r * np.cos(a), py + r * np.sin(a)))
            for kind, y1, y2 in places:
                for a1 in [0.0, 0.5]:
                    rows.append((kind, s, q, rho, a1, y1, y2, ld_disks(s, q, y1, y2, rho, a1)))
    s, q, rho, u0, tE = 1.0, 1e-3, 1e-3, 0.005, 20.0
    for t in np.linspace(0.184, 0.192, 9):
        y1, y2 = to_frame(t, 0.0, u0, tE, 0.0)
        for a1 in [0.0, 0.5]:
            rows.append((3, s, q, rho, a1, y1, y2, ld_disks(s, q, y1, y2, rho, a1)))
    write("fsbl_dynamic.csv", [
        "finite sources behind binary lenses, s and q free: VBMicrolensing BinaryMag2",
        "(RelTol = Tol = 1e-7; a1 > 0 as 48 uniform disks, ld_disks()), frame as binary_ps.csv;",
        "kind 0: centre on a caustic point;",
        "1: edge grazing a caustic point; 2: 1-10 rho off; 3: s = 1, q = 1e-3, rho = 1e-3,",
        "u0 = 0.005, alpha = 0, tE = 20, t = 0.184..0.192 d (fsbl_dynamic() says how)"],
        ["kind", "s", "q", "rho", "a1", "y1", "y2", "A"], rows)


if __name__ == "__main__":
    # no arguments: every file; else only the named ones (e.g. binary_random)
    os.makedirs(DATA, exist_ok=True)
    makers = dict(point_fs=point_fs, binary_ps=binary_ps, binary_lc=binary_lc, pspl_lc=pspl_lc,
                  binary_random=binary_random, caustics_box=caustics_box,
                  binary_fs_lc=binary_fs_lc, fsbl_lc=fsbl_lc, fsbl_event=fsbl_event,
                  phot_event=phot_event, parallax_lc=parallax_lc, binsrc_lc=binsrc_lc,
                  xallarap_lc=xallarap_lc,
                  orbital_lc=orbital_lc, kepler_lc=kepler_lc, satellite_lc=satellite_lc,
                  multi_ps=multi_ps, fsbl_dynamic=fsbl_dynamic)
    for name in sys.argv[1:] or list(makers):
        makers[name]()
