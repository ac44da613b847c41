"""python3 -m nhsim: draw a result file, or submit a spec and wait for its result.

    python3 -m nhsim plot RESULT.json -o FIG.png [--observable NAME | --kind KIND] [--dpi N]
    python3 -m nhsim submit SPEC.json [--server ADDR] [--wait] [--json OUT.json] [--no-progress]

RESULT.json is a result file of `nhsim result JOB --json FILE` (the protobuf JSON of
EnsembleResult). Exit status: 0 success, 1 an error, 2 a job that ended FAILED or CANCELLED.
"""

import argparse
import sys

import nhsim


def _plot(args):
    import matplotlib  # pylint: disable=import-outside-toplevel

    matplotlib.use("Agg")
    import nhsim.plot  # pylint: disable=import-outside-toplevel

    result = nhsim.load_result(args.result)
    if args.observable:
        fig = nhsim.plot.plot_observable(result, args.observable).figure
    elif args.kind == "variance":
        fig = nhsim.plot.plot_energy_variance(result).figure
    elif args.kind == "energy":
        fig = nhsim.plot.plot_energy_error(result).figure
    else:
        fig = nhsim.plot.plot_overview(result)
    fig.savefig(args.output, dpi=args.dpi)
    print(f"figure written to {args.output}", file=sys.stderr)
    return 0


def _submit(args):
    token = None
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as file:
            token = file.read().strip()
    client = nhsim.Client(args.server, token=token, tls=args.tls, tls_ca=args.tls_ca,
                          tls_cert=args.tls_cert, tls_key=args.tls_key)
    with client:
        job = client.submit(args.spec)
        print(f"submitted job {job.id}", file=sys.stderr)
        if not args.wait:
            print(job.id)
            return 0
        job.watch(progress=not args.no_progress)
        print(f"job {job.id} {job.state} {job.trajectories_done}/{job.trajectories_total} "
              f"trajectories{': ' + job.error if job.error else ''}", file=sys.stderr)
        if job.state == "FAILED":
            return 2
        result = job.result()
        sys.stdout.write(nhsim.summary_table(result))  # the C++ CLI's table, notes included
        if args.json:
            result.save(args.json)
            print(f"result written to {args.json}", file=sys.stderr)
        return 2 if job.state == "CANCELLED" else 0


def _parser():
    parser = argparse.ArgumentParser(prog="python3 -m nhsim", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    plot = commands.add_parser("plot", help="draw a result file to an image (PNG, SVG, PDF)")
    plot.add_argument("result", help="result file: `nhsim result JOB --json FILE`")
    plot.add_argument("-o", "--output", required=True, help="image file, e.g. fig.png")
    group = plot.add_mutually_exclusive_group()
    group.add_argument("--observable", help="draw this observable (mean, median, 5-95 %% band)")
    group.add_argument("--kind", choices=["overview", "variance", "energy"], default="overview",
                       help="overview (default): energy-error variance, relative energy error "
                            "and constraint residual; variance or energy: one of those panels")
    plot.add_argument("--dpi", type=int, default=120)
    plot.set_defaults(run=_plot)

    submit = commands.add_parser("submit", help="submit a spec; --wait for its result")
    submit.add_argument("spec", help="spec file (JSON), as examples/*.json")
    submit.add_argument("--server", default=None,
                        help="host:port (default: $NHSIM_SERVER or 127.0.0.1:50051)")
    submit.add_argument("--token-file", help="file holding the bearer token "
                                             "(default: the environment variable NHSIM_TOKEN)")
    submit.add_argument("--tls", action="store_true", help="TLS with the system's CAs")
    submit.add_argument("--tls-ca", help="PEM CA certificates that signed the server's")
    submit.add_argument("--tls-cert", help="PEM client certificate (mutual TLS)")
    submit.add_argument("--tls-key", help="PEM client private key (mutual TLS)")
    submit.add_argument("--wait", action="store_true", help="follow the job, print its summary")
    submit.add_argument("--json", help="with --wait: write the result as JSON to this file")
    submit.add_argument("--no-progress", action="store_true", help="no progress bar")
    submit.set_defaults(run=_submit)
    return parser


def main(argv=None):
    """Runs the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except (nhsim.NhsimError, ValueError, OSError) as error:
        print(f"nhsim: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
