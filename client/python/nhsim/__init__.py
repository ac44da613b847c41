"""nhsim: a Python client for nhsimd, the nhsim ensemble service (nhsim.v1.EnsembleService).

Submit an ensemble spec, follow the job, read its result, turn it into pandas DataFrames and
draw it with matplotlib::

    import nhsim
    client = nhsim.Client("127.0.0.1:50051")            # token=..., tls=... where needed
    job = client.submit("examples/chaotic_variance.json")
    job.watch()                                          # a progress bar on a terminal
    result = job.result()                                # an nhsim.Result
    stats = result.to_dataframe()                        # one row per choice x observable x t
    import nhsim.plot
    nhsim.plot.plot_energy_variance(result)

The protobuf and gRPC modules are generated from proto/nhsim/v1/*.proto at build time into
``build/client/python/stubs`` (package ``nhsim.v1``); that directory and this package's parent
directory must both be on ``sys.path`` (PYTHONPATH). ``nhsim.plot`` is imported on its own,
so that the client does not load matplotlib.
"""

import pkgutil

# The generated stubs live in another directory on sys.path under the same package name
# (nhsim/v1/*_pb2.py): let this package's path span every nhsim directory on sys.path.
__path__ = pkgutil.extend_path(__path__, __name__)

# pylint: disable=wrong-import-position
from nhsim.client import Client, Job, NhsimError, load_spec  # noqa: E402
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

__all__ = [
    "Client",
    "ConditionalStatisticsWarning",
    "Job",
    "NhsimError",
    "Result",
    "failure_warnings",
    "failures_frame",
    "load_result",
    "load_spec",
    "observables_frame",
    "summary_frame",
    "to_dataframe",
    "variance_ratios_frame",
]
