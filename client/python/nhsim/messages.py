"""The nhsim.v1.EnsembleResult message behind a result, whatever form the caller holds it in.

Shared by nhsim.results and nhsim.outputs (neither imports the other's internals).
"""

import os
import pathlib

from google.protobuf import json_format

from nhsim._stubs import ensemble_pb2


def read_result_message(path):
    """Reads a result file: the protobuf JSON of an EnsembleResult (`nhsim result JOB --json
    FILE`, `nhsim submit --wait --json FILE`, Result.save) or its binary serialization.

    Returns:
        nhsim.v1.EnsembleResult.
    Raises:
        ValueError: the file is neither.
    """
    data = pathlib.Path(path).read_bytes()
    proto = ensemble_pb2.EnsembleResult()
    try:
        if data.lstrip()[:1] == b"{":
            json_format.Parse(data.decode("utf-8"), proto)
        else:
            proto.ParseFromString(data)
    except Exception as error:  # ParseError, DecodeError, UnicodeDecodeError
        raise ValueError(f"{os.fspath(path)}: not an nhsim result ({error})") from error
    return proto


def as_proto(result):
    """The EnsembleResult message of an nhsim.Result (its ``proto``), an EnsembleResult or a
    result file's path."""
    if isinstance(result, ensemble_pb2.EnsembleResult):
        return result
    if isinstance(getattr(result, "proto", None), ensemble_pb2.EnsembleResult):
        return result.proto
    if isinstance(result, (str, os.PathLike)):
        return read_result_message(result)
    raise TypeError(f"expected an nhsim.Result, an EnsembleResult or a path, "
                    f"got {type(result).__name__}")


def over_cases(proto, frame):
    """For a sweep's result (EnsembleResult.cases): frame(case result) of every case, in grid
    order, as one long-format DataFrame with the columns ``case`` (int, the case's index) and
    one per swept field (named as in the spec's sweep, e.g. ``parameters.n``) first; a swept
    field that the frame has as a column already (``h``, ``sample_every``) is that column."""
    import pandas as pd  # only the frame functions need pandas

    frames = []
    for index, case in enumerate(proto.cases):
        part = frame(case.result)
        columns = {"case": index, **{v.field: v.value for v in case.values}}
        # A swept field that is also a column (h, sample_every) is left to that column.
        columns = {name: value for name, value in columns.items() if name not in part.columns}
        for position, (name, value) in enumerate(columns.items()):
            part.insert(position, name, value)
        frames.append(part)
    return pd.concat(frames, ignore_index=True)
