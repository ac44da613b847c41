"""What the service benchmarks share: nhsimd started on 127.0.0.1:0 and stopped by its pid, its
/proc figures, and the specs they submit. configure(BUILD, WORK) first."""
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

NHSIMD = NHSIM = WORK = None


def configure(build, work):
    """The build tree to run and the directory for logs, stores and pid files."""
    global NHSIMD, NHSIM, WORK
    NHSIMD = os.path.join(build, "server", "nhsimd")
    NHSIM = os.path.join(build, "client", "nhsim")
    WORK = work


MIB = 1024.0 * 1024.0


class Server:
    """nhsimd on 127.0.0.1:0 with its log in WORK/NAME.log; stopped by its pid."""

    def __init__(self, name, *flags, data_dir=None):
        self.name = name
        self.data_dir = data_dir or os.path.join(WORK, "data-" + name)
        self.log = os.path.join(WORK, name + ".log")
        args = [NHSIMD, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0",
                "--data-dir", self.data_dir, *flags]
        started = time.monotonic()
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log)
        self.pid = self.process.pid
        self.pid_file = os.path.join(WORK, "pids", str(self.pid))
        os.makedirs(os.path.dirname(self.pid_file), exist_ok=True)
        open(self.pid_file, "w").close()
        self.address = self.metrics_url = None
        while time.monotonic() - started < 120:
            text = open(self.log).read()
            match = re.search(r"listening on (127\.0\.0\.1:[0-9]+), metrics on (http://\S+/metrics)",
                              text)
            if match:
                self.address, self.metrics_url = match.group(1), match.group(2)
                break
            if self.process.poll() is not None:
                break
            time.sleep(0.01)
        self.start_seconds = time.monotonic() - started
        if self.address is None:
            sys.exit(f"nhsimd ({name}) did not start:\n{open(self.log).read()}")

    def rss_mib(self):
        return status_kib(self.pid, "VmRSS") / 1024.0

    def cpu_seconds(self):
        fields = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def metrics(self):
        with urllib.request.urlopen(self.metrics_url, timeout=30) as answer:
            return answer.read()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.remove(self.pid_file)


def status_kib(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def quantile(values, q):
    """Nearest rank, as bench/load_driver.cpp."""
    values = sorted(values)
    return values[min(int(q * (len(values) - 1) + 0.5), len(values) - 1)] if values else 0.0


def spec(count, t_final, label="", sample_every=20, outputs=None):
    s = {"system": "chaotic_quartic", "parameters": {"n": 3},
         "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 7, "count": count}},
         "integrators": [{"integrator": "rk4", "h": 0.05, "sample_every": sample_every}],
         "t_final": t_final, "label": label}
    if outputs:
        s["outputs"] = outputs
    return s


LONG = spec(2000, 2e4, "long")  # 4e5 rk4 steps per trajectory: minutes on 2 cores


def wait_finished(client, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs = client.jobs()
        if all(job.finished for job in jobs):
            return jobs
        time.sleep(0.1)
    sys.exit("jobs did not finish in time")


def wait_running(jobs, count, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(job.refresh().state == "RUNNING" for job in jobs) >= count:
            return
        time.sleep(0.05)
    sys.exit("jobs did not start in time")


def make_token(identity, tokens_file):
    out = subprocess.run([NHSIM, "token", identity, "--append", tokens_file], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return out.strip().splitlines()[-1]


def section(title):
    print(f"\n== {title}", flush=True)
