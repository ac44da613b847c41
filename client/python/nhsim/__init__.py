"""nhsim: a Python client for nhsimd, the nhsim ensemble service (nhsim.v1.EnsembleService).

Submit an ensemble spec, follow the job, read its result, turn it into pandas DataFrames and
draw it with matplotlib::

    import nhsim
    client = nhsim.Client("127.0.0.1:50051")            # token=..., tls=... where needed
    job = client.submit("examples/chaotic_variance.json")
    job.watch()                                          # progress: notebook, terminal or log
    result = job.result()                                # an nhsim.Result
    stats = result.to_dataframe()                        # one row per choice x observable x t
    nhsim.plot_summary(result, "energy_error")           # mean and 5-95 % band per integrator

Without a server, ``nhsim.run(spec)`` runs the ensemble in a child ``nhsim run`` process (the
same result bits); ``with nhsim.local_server() as client:`` starts an nhsimd on a loopback port
for the service's features and stops it at the end (nhsim.local finds the binaries).

Install it with ``pip install ./client/python`` (docs/python.md),
which generates the protobuf and gRPC modules (package ``nhsim.v1``) from proto/nhsim/v1. In a
build tree they are in ``build/client/python/stubs`` instead, which may then be on sys.path
beside client/python. ``nhsim.plot`` is imported on its own, and matplotlib only when drawing.
"""

import pkgutil

# The generated stubs live in another directory on sys.path under the same package name
# (nhsim/v1/*_pb2.py): let this package's path span every nhsim directory on sys.path.
__path__ = pkgutil.extend_path(__path__, __name__)

# pylint: disable=wrong-import-position
from nhsim.catalogue import Parameter, System  # noqa: E402
from nhsim.client import Client, Job, NhsimError, load_spec, spec_units  # noqa: E402
from nhsim.local import LocalServer, find_binary, local_server, run  # noqa: E402
from nhsim.results import (  # noqa: E402
    ConditionalStatisticsWarning,
    Result,
    failure_warnings,
    failures_frame,
    load_result,
    observables_frame,
    summary_frame,
    to_dataframe,
    variance_ratios_frame,
)
from nhsim.summary import ensemble_summary, plot_summary  # noqa: E402
from nhsim.table import summary_table  # noqa: E402

__all__ = [
    "Client",
    "ConditionalStatisticsWarning",
    "Job",
    "LocalServer",
    "NhsimError",
    "Parameter",
    "Result",
    "System",
    "ensemble_summary",
    "failure_warnings",
    "failures_frame",
    "find_binary",
    "load_result",
    "load_spec",
    "local_server",
    "observables_frame",
    "plot_summary",
    "run",
    "spec_units",
    "summary_frame",
    "summary_table",
    "to_dataframe",
    "variance_ratios_frame",
]
