"""The numba peer of bench/peers-numba: SI-DLA and RK4 on the chaotic quartic system
with n blocks ([Celledoni2019] §4.1, eq. (19)-(21)), written the obvious way in numba: one
trajectory per `prange` iteration, compiled with @njit, no statistics (the kernel-only runs).

SI-DLA is [McLachlan2006] eq. (4.18) in canonical coordinates, as in
core/include/nhsim/integrators/si_dla.hpp (M = I and mu(q) = (1, 0..0, w_1..w_n): one division per
step solves the constraint exactly). RK4 is the classical method on the reduced ODE
zeta' = Pi(zeta) grad H(zeta), eq. (9) and (21), zeta = (q, rho), as in
core/include/nhsim/integrators/rk4.hpp and nhsim/systems/chaotic_quartic.hpp. Each operation is
the one nhsim's stepper performs, in the same order, so the final states agree with nhsim's to
round-off (bit for bit where the compilers agree; `check` compares them).

    peer_numba.py run METHOD STATES N_TRAJ N_STEPS THREADS
        prints "seconds S trajectory_steps K checksum C" (S: the integration alone, after a
        warm-up call that compiles the kernel)
    peer_numba.py check METHOD STATES N_TRAJ N_STEPS FINAL [TOLERANCE]
        compares the final states with FINAL (rows of q then p); exits 1 above TOLERANCE
        relative (default 1e-12: the same method in the same order of operations)

STATES and FINAL are float64 files of rows (q[2n+1], p[2n+1]); n follows from the row length,
given as the file name's suffix ".n<n>.f64".
"""

import re
import sys
import time

import numba
import numpy as np
from numba import njit, prange

H = 0.05


@njit(inline="always")
def grad_potential(n, q, g):
    g[0] = q[0]
    for i in range(n):
        wi, zi = q[1 + i], q[1 + n + i]
        g[1 + i] = wi + wi * zi * zi
        g[1 + n + i] = zi + wi * wi * zi
    if n >= 2:
        z1, z2 = q[1 + n], q[2 + n]
        g[1 + n] += z1 * z2 * z2
        g[2 + n] += z1 * z1 * z2


@njit(inline="always")
def si_dla_step(n, h, q, p, qh, g):
    nq = 2 * n + 1
    for i in range(nq):
        qh[i] = q[i] + (0.5 * h) * p[i]
    grad_potential(n, qh, g)
    for i in range(nq):
        p[i] = p[i] - h * g[i]  # p_t
        q[i] = qh[i] + (0.5 * h) * p[i]  # q_1
    c = p[0]
    jac = 1.0
    for i in range(n):
        c += q[1 + i] * p[1 + n + i]
        jac += q[1 + i] * qh[1 + i]
    lam = -(c / (h * jac))
    p[0] += (h * 1.0) * lam
    q[0] += (0.5 * h * h * 1.0) * lam
    for i in range(n):
        p[1 + n + i] += (h * qh[1 + i]) * lam
        q[1 + n + i] += (0.5 * h * h * qh[1 + i]) * lam


@njit(inline="always")
def reduced_rhs(n, z, g, out):
    o = 2 * n + 1
    we = 0.0
    ww = 0.0
    for i in range(n):
        we += z[1 + i] * z[o + n + i]
        ww += z[1 + i] * z[1 + i]
    k = we / (1.0 + ww)
    g[0] = z[0]
    for i in range(n):
        wi, zi, eta = z[1 + i], z[1 + n + i], z[o + n + i]
        g[1 + i] = wi + wi * zi * zi - k * eta + k * k * wi
        g[1 + n + i] = zi + wi * wi * zi
        g[o + i] = z[o + i]
        g[o + n + i] = eta - k * wi
    if n >= 2:
        z1, z2 = z[1 + n], z[2 + n]
        g[1 + n] += z1 * z2 * z2
        g[2 + n] += z1 * z1 * z2
    # out = Pi(zeta) g, eq. (21)
    wve = 0.0
    for i in range(n):
        wve += z[1 + i] * g[o + n + i]
    out[0] = wve
    for i in range(n):
        vxi, veta = g[o + i], g[o + n + i]
        out[1 + i] = vxi
        out[1 + n + i] = -veta
        out[o + i] = -g[1 + i] - k * veta
        out[o + n + i] = -z[1 + i] * g[0] + g[1 + n + i] + k * vxi


@njit(inline="always")
def rk4_step(n, h, z, k1, k2, k3, k4, t, g):
    nz = 4 * n + 1
    reduced_rhs(n, z, g, k1)
    for i in range(nz):
        t[i] = z[i] + (0.5 * h) * k1[i]
    reduced_rhs(n, t, g, k2)
    for i in range(nz):
        t[i] = z[i] + (0.5 * h) * k2[i]
    reduced_rhs(n, t, g, k3)
    for i in range(nz):
        t[i] = z[i] + h * k3[i]
    reduced_rhs(n, t, g, k4)
    for i in range(nz):
        z[i] += (h / 6.0) * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])


@njit(inline="always")
def to_zeta(n, q, p, z):
    nq = 2 * n + 1
    for i in range(nq):
        z[i] = q[i]
    for i in range(n):
        z[nq + i] = p[1 + i]
        z[nq + n + i] = q[1 + i] * p[0] - p[1 + n + i]


@njit(inline="always")
def from_zeta(n, z, q, p):
    nq = 2 * n + 1
    for i in range(nq):
        q[i] = z[i]
    we = 0.0
    ww = 0.0
    for i in range(n):
        we += q[1 + i] * z[nq + n + i]
        ww += q[1 + i] * q[1 + i]
    k = we / (1.0 + ww)
    px = 0.0
    for i in range(n):
        u = z[nq + n + i] - k * q[1 + i]
        px += q[1 + i] * u
        p[1 + i] = z[nq + i]
        p[1 + n + i] = -u
    p[0] = px


@njit(parallel=True, cache=True)
def run_si_dla(n, states, steps, h):
    nq = 2 * n + 1
    for j in prange(states.shape[0]):
        q = states[j, :nq].copy()
        p = states[j, nq:].copy()
        qh = np.empty(nq)
        g = np.empty(nq)
        for _ in range(steps):
            si_dla_step(n, h, q, p, qh, g)
        states[j, :nq] = q
        states[j, nq:] = p


@njit(parallel=True, cache=True)
def run_rk4(n, states, steps, h):
    nq = 2 * n + 1
    nz = 4 * n + 1
    for j in prange(states.shape[0]):
        z = np.empty(nz)
        to_zeta(n, states[j, :nq], states[j, nq:], z)
        k1, k2, k3 = np.empty(nz), np.empty(nz), np.empty(nz)
        k4, t, g = np.empty(nz), np.empty(nz), np.empty(nz)
        for _ in range(steps):
            rk4_step(n, h, z, k1, k2, k3, k4, t, g)
        q = np.empty(nq)
        p = np.empty(nq)
        from_zeta(n, z, q, p)
        states[j, :nq] = q
        states[j, nq:] = p


KERNELS = {"si_dla": run_si_dla, "rk4": run_rk4}


def load(path, count):
    m = re.search(r"\.n(\d+)\.f64$", path)
    if not m:
        sys.exit(f"{path}: the file name must end in .n<n>.f64")
    n = int(m.group(1))
    width = 2 * (2 * n + 1)
    rows = np.fromfile(path, dtype=np.float64)
    if rows.size < count * width:
        sys.exit(f"{path}: fewer than {count} states of {width} values")
    return n, np.ascontiguousarray(rows[: count * width].reshape(count, width))


def main(argv):
    if len(argv) == 7 and argv[1] == "run":
        method, path, count, steps, threads = argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6])
        numba.set_num_threads(threads)
        n, states = load(path, count)
        KERNELS[method](n, states[:1].copy(), 1, H)  # compile
        t0 = time.perf_counter()
        KERNELS[method](n, states, steps, H)
        seconds = time.perf_counter() - t0
        print(f"seconds {seconds:.6f} trajectory_steps {count * steps} "
              f"checksum {float(states.sum()):.17g}")
        return 0
    if len(argv) in (7, 8) and argv[1] == "check":
        method, path, count, steps, final = argv[2], argv[3], int(argv[4]), int(argv[5]), argv[6]
        tolerance = float(argv[7]) if len(argv) == 8 else 1e-12
        n, states = load(path, count)
        KERNELS[method](n, states, steps, H)
        _, want = load(final, count)
        same = int(np.count_nonzero(np.all(states == want, axis=1)))
        scale = np.abs(want).max(axis=1)
        worst = float((np.abs(states - want).max(axis=1) / scale).max())
        print(f"numba {method} against nhsim, n = {n}, {count} trajectories x {steps} steps: "
              f"{same} of {count} bit-identical, largest relative difference {worst:.3g}")
        return 0 if worst <= tolerance else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
