"""The numpy peer of bench/peers: SI-DLA on the chaotic quartic system (n = 3), vectorised
over trajectories, with the statistics nhsim reports at the same sample times.

SI-DLA is [McLachlan2006] eq. (4.18), [Celledoni2019] Fig. 2, in canonical coordinates, as in
core/include/nhsim/integrators/si_dla.hpp: M = I and mu(q) = (1, 0, 0, 0, w_1, w_2, w_3), so the
constraint is affine in the multiplier and one division per step solves it exactly:
    q_h = q + h/2 p
    p_t = p - h grad V(q_h)
    q_1 = q_h + h/2 p_t
    lambda = -(mu(q_1) . p_t) / (h mu(q_1) . mu(q_h))
    p' = p_t + h lambda mu(q_h),   q' = q_1 + h^2/2 lambda mu(q_h)
Each operation is the one nhsim's stepper performs, in the same order, so the states agree bit for
bit (check() compares them against nhsim's; bench/peers runs it before timing).

The state is stored as (7, N) arrays, one row per coordinate, every step is a fixed sequence of
in-place ufuncs into preallocated rows (no temporaries), and the statistics per sample time are
numpy reductions over the N trajectories: count, mean, unbiased variance, min, max and the 5 %,
50 % and 95 % quantiles of energy_error, relative_energy_error and constraint_residual.

    peer_numpy_sidla.py run STATES N T_FINAL       prints "seconds S trajectory_steps K checksum C"
    peer_numpy_sidla.py check STATES N STEPS NHSIM_FINAL
"""

import sys
import time

import numpy as np

H = 0.05
SAMPLE_EVERY = 20


def load(path, n):
    rows = np.fromfile(path, dtype=np.float64, count=14 * n).reshape(n, 14)
    if rows.shape[0] != n:
        sys.exit(f"{path}: fewer than {n} states")
    return np.ascontiguousarray(rows[:, :7].T), np.ascontiguousarray(rows[:, 7:].T)


class SiDla:
    """Advances (q, p), arrays of shape (7, N), in place; all workspace allocated once."""

    def __init__(self, n, h=H):
        self.h = h
        self.half_h = 0.5 * h
        self.half_h2 = 0.5 * h * h
        self.qh = np.empty((7, n))
        self.g = np.empty((7, n))
        self.a = np.empty(n)
        self.c = np.empty(n)
        self.jac = np.empty(n)

    def step(self, q, p):
        qh, g, a, c, jac = self.qh, self.g, self.a, self.c, self.jac
        h = self.h
        # q_h = q + (h/2) p
        np.multiply(p, self.half_h, out=qh)
        np.add(q, qh, out=qh)
        # grad V(q_h): g_x = x, g_w = w + (w z) z, g_z = z + (w w) z, plus the z_1 z_2 coupling
        x, w, z = qh[0], qh[1:4], qh[4:7]
        np.multiply(w, z, out=g[1:4])
        np.multiply(g[1:4], z, out=g[1:4])
        np.add(w, g[1:4], out=g[1:4])
        np.multiply(w, w, out=g[4:7])
        np.multiply(g[4:7], z, out=g[4:7])
        np.add(z, g[4:7], out=g[4:7])
        np.multiply(z[0], z[1], out=a)
        np.multiply(a, z[1], out=a)
        np.add(g[4], a, out=g[4])
        np.multiply(z[0], z[0], out=a)
        np.multiply(a, z[1], out=a)
        np.add(g[5], a, out=g[5])
        g[0] = x
        # p_t = p - h g (into p), q_1 = q_h + (h/2) p_t (into q)
        np.multiply(g, h, out=g)
        np.subtract(p, g, out=p)
        np.multiply(p, self.half_h, out=q)
        np.add(qh, q, out=q)
        # c = mu(q_1) . p_t and jac = h mu(q_1) . mu(q_h), summed in nhsim's order
        np.multiply(q[1], p[4], out=a)
        np.add(p[0], a, out=c)
        for i in (2, 3):
            np.multiply(q[i], p[i + 3], out=a)
            np.add(c, a, out=c)
        np.multiply(q[1], qh[1], out=a)
        np.add(1.0, a, out=jac)
        for i in (2, 3):
            np.multiply(q[i], qh[i], out=a)
            np.add(jac, a, out=jac)
        np.multiply(jac, h, out=jac)
        # lambda = -(c / jac) (into c); p += (h mu_h) lambda, q += (h^2/2 mu_h) lambda
        np.divide(c, jac, out=c)
        np.negative(c, out=c)
        np.multiply(c, h, out=a)
        np.add(p[0], a, out=p[0])
        np.multiply(c, self.half_h2, out=a)
        np.add(q[0], a, out=q[0])
        for i in (1, 2, 3):
            np.multiply(qh[i], h, out=a)
            np.multiply(a, c, out=a)
            np.add(p[i + 3], a, out=p[i + 3])
            np.multiply(qh[i], self.half_h2, out=a)
            np.multiply(a, c, out=a)
            np.add(q[i + 3], a, out=q[i + 3])


def energy(q, p):
    w, z = q[1:4], q[4:7]
    v = np.einsum("ij,ij->j", q, q) + (z[0] * z[1]) ** 2 + np.einsum("ij,ij->j", w * z, w * z)
    return 0.5 * np.einsum("ij,ij->j", p, p) + 0.5 * v


def residual(q, p):
    return np.abs(p[0] + q[1] * p[4] + q[2] * p[5] + q[3] * p[6])


def statistics(values, out):
    """count, mean, variance, min, max, q05, q50, q95 of each row of `values` into `out`."""
    out[:, 0] = values.shape[1]
    out[:, 1] = values.mean(axis=1)
    out[:, 2] = values.var(axis=1, ddof=1)
    out[:, 3] = values.min(axis=1)
    out[:, 4] = values.max(axis=1)
    out[:, 5:8] = np.quantile(values, (0.05, 0.5, 0.95), axis=1).T


def run(q, p, t_final):
    n = q.shape[1]
    n_steps = round(t_final / H)
    n_samples = n_steps // SAMPLE_EVERY + (1 if n_steps % SAMPLE_EVERY else 0) + 1
    stats = np.empty((n_samples, 3, 8))  # [sample, observable, statistic]
    obs = np.empty((3, n))
    stepper = SiDla(n)
    h0 = energy(q, p)
    abs_h0 = np.abs(h0)

    def sample(k):
        np.subtract(energy(q, p), h0, out=obs[0])
        np.abs(obs[0], out=obs[1])
        np.divide(obs[1], abs_h0, out=obs[1])
        obs[2] = residual(q, p)
        statistics(obs, stats[k])

    sample(0)
    for k in range(1, n_samples):
        for _ in range(min(SAMPLE_EVERY, n_steps - (k - 1) * SAMPLE_EVERY)):
            stepper.step(q, p)
        sample(k)
    return stats, n * n_steps


def main(argv):
    if len(argv) == 5 and argv[1] == "run":
        q, p = load(argv[2], int(argv[3]))
        t0 = time.perf_counter()
        stats, steps = run(q, p, float(argv[4]))
        seconds = time.perf_counter() - t0
        print(f"seconds {seconds:.6f} trajectory_steps {steps} checksum {stats[:, :, 2].sum():.17g}")
        return 0
    if len(argv) == 6 and argv[1] == "check":
        n, steps = int(argv[3]), int(argv[4])
        q, p = load(argv[2], n)
        stepper = SiDla(n)
        for _ in range(steps):
            stepper.step(q, p)
        want_q, want_p = load(argv[5], n)
        same = np.count_nonzero(np.all((q == want_q) & (p == want_p), axis=0))
        scale = np.maximum(np.abs(want_q).max(axis=0), np.abs(want_p).max(axis=0))
        diff = np.maximum(np.abs(q - want_q).max(axis=0), np.abs(p - want_p).max(axis=0))
        worst = float((diff / scale).max())
        print(f"numpy SI-DLA against nhsim si_dla, {n} trajectories x {steps} steps: "
              f"{same} of {n} bit-identical, largest relative difference {worst:.3g}")
        return 0 if worst <= 1e-12 else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
