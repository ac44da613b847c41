"""The gRPC client of nhsimd: Client (a connection) and Job (one submitted ensemble).

Every call that the server answers with an error raises NhsimError, which carries the gRPC
status code name (``"INVALID_ARGUMENT"``, ``"UNAUTHENTICATED"``, ...) and the server's message
(e.g. ``"integrators[0].h: must be finite and > 0"``).
"""

import json
import os
import pathlib
import secrets
import sys
import time

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError

from nhsim._stubs import ensemble_pb2, ensemble_pb2_grpc
from nhsim.results import Result

#: The states after which a job never changes again.
TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})

_DEFAULT_ADDRESS = "127.0.0.1:50051"


class NhsimError(Exception):
    """An error answer of nhsimd (or of the connection to it).

    Attributes:
        code: the gRPC status code name, e.g. ``"NOT_FOUND"`` (str).
        message: the server's message (str), e.g. ``"integrators[0].h: must be finite and > 0"``.
        status: the grpc.StatusCode, or None for errors found by the client itself.
    """

    def __init__(self, code, message, status=None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status

    @classmethod
    def from_rpc_error(cls, error):
        """The NhsimError of a grpc.RpcError raised by a call."""
        status = error.code()
        name = status.name if status is not None else "UNKNOWN"
        return cls(name, error.details() or "", status)


def _read_bytes(value):
    """PEM contents: bytes as given, else the bytes of the file at that path; None stays None."""
    if value is None or isinstance(value, bytes):
        return value
    return pathlib.Path(value).read_bytes()


def load_spec(spec):
    """An ensemble spec as a SubmitEnsembleRequest message.

    Args:
        spec: a dict in the protobuf JSON mapping (as examples/*.json), a path (str or
            os.PathLike) of such a JSON file, a str of JSON text (starting with "{"), or a
            SubmitEnsembleRequest (copied).

    Raises:
        ValueError: the spec does not parse (unknown field, wrong type), naming the file.
        OSError: the file cannot be read.
    """
    request = ensemble_pb2.SubmitEnsembleRequest()
    if isinstance(spec, ensemble_pb2.SubmitEnsembleRequest):
        request.CopyFrom(spec)
        return request
    if isinstance(spec, dict):
        where, text = "spec", None
    elif isinstance(spec, str) and spec.lstrip().startswith("{"):
        where, text = "spec", spec
    elif isinstance(spec, (str, os.PathLike)):
        where, text = os.fspath(spec), pathlib.Path(spec).read_text(encoding="utf-8")
    else:
        raise TypeError(f"spec: expected a dict, a path or JSON text, got {type(spec).__name__}")
    try:
        if text is not None:
            spec = json.loads(text)
        json_format.ParseDict(spec, request)
    except (json.JSONDecodeError, json_format.ParseError) as error:
        raise ValueError(f"{where}: {error}") from error
    return request


class Client:
    """A connection to nhsimd (nhsim.v1.EnsembleService).

    Args:
        address: "host:port" of the server.
        token: the bearer token; None = the environment variable NHSIM_TOKEN, if set. Sent as
            the metadata ``authorization: Bearer <token>`` on every call.
        tls: True for TLS with the system's CA certificates (also implied by tls_ca/tls_cert).
        tls_ca: the CA certificates (PEM) that signed the server's certificate: a path or bytes.
        tls_cert, tls_key: the client's certificate chain and private key (PEM, path or bytes)
            for mutual TLS.
        timeout: deadline of each call in seconds (watching a job has none by default).

    Use as a context manager, or call close(), to release the channel.
    """

    def __init__(self, address=_DEFAULT_ADDRESS, token=None, tls=False, tls_ca=None,
                 tls_cert=None, tls_key=None, timeout=60):
        if token is None:
            token = os.environ.get("NHSIM_TOKEN")
        token = token.strip() if token else None
        self.address = address
        self.timeout = timeout
        self._metadata = (("authorization", f"Bearer {token}"),) if token else None
        options = [("grpc.max_receive_message_length", -1),  # the server bounds its answers
                   ("grpc.max_send_message_length", -1)]
        self._tls = bool(tls or tls_ca is not None or tls_cert is not None)
        if self._tls:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=_read_bytes(tls_ca),
                private_key=_read_bytes(tls_key),
                certificate_chain=_read_bytes(tls_cert))
            self._channel = grpc.secure_channel(address, credentials, options)
        else:
            self._channel = grpc.insecure_channel(address, options)
        self._stub = ensemble_pb2_grpc.EnsembleServiceStub(self._channel)

    def __repr__(self):
        tls = "tls" if self._tls else "plaintext"
        token = "token" if self._metadata else "no token"
        return f"nhsim.Client({self.address!r}, {tls}, {token})"

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Closes the channel; the client cannot be used afterwards."""
        self._channel.close()

    def _call(self, method, request, timeout="default", metadata=()):
        """Calls a unary RPC with the token and the deadline; raises NhsimError."""
        timeout = self.timeout if timeout == "default" else timeout
        metadata = tuple(self._metadata or ()) + tuple(metadata)
        try:
            return getattr(self._stub, method)(request, timeout=timeout,
                                               metadata=metadata or None)
        except grpc.RpcError as error:
            raise NhsimError.from_rpc_error(error) from None

    def _stream(self, method, request, timeout):
        """Yields the messages of a server-streaming RPC; raises NhsimError, cancels on exit."""
        call = getattr(self._stub, method)(request, timeout=timeout, metadata=self._metadata)
        try:
            yield from call
        except grpc.RpcError as error:
            raise NhsimError.from_rpc_error(error) from None
        finally:
            call.cancel()  # no-op once the stream has ended

    def systems(self):
        """The systems the server runs: a list of nhsim.v1.SystemInfo messages (name,
        description, source, parameters with unit/default/range, invariants, integrators)."""
        return list(self._call("ListSystems", ensemble_pb2.ListSystemsRequest()).systems)

    def integrators(self):
        """The integrators the server knows: a list of nhsim.v1.IntegratorInfo messages (name,
        order, implicit, energy_preserving, requirements, Newton defaults)."""
        return list(self._call("ListIntegrators",
                               ensemble_pb2.ListIntegratorsRequest()).integrators)

    def register_system(self, name, custom_system, description=""):
        """Registers a user-defined system under `name` for this identity (docs/custom-systems.md):
        afterwards a spec may set ``"system": name`` instead of ``custom_system``.

        Args:
            name: an identifier, not a catalogue system's name.
            custom_system: a dict in the protobuf JSON mapping of nhsim.v1.CustomSystem (as
                ``spec["custom_system"]``, or nhsim.symbolic.custom_system()'s) or the message.
            description: free text, shown by systems().

        Returns:
            Its nhsim.v1.SystemInfo (integrators that apply, invariants).

        Raises:
            NhsimError: INVALID_ARGUMENT naming the field (``name`` or ``custom_system.…``),
                ALREADY_EXISTS when this identity has a system of that name.
        """
        request = ensemble_pb2.RegisterSystemRequest(name=name, description=description)
        if isinstance(custom_system, dict):
            json_format.ParseDict(custom_system, request.custom_system)
        else:
            request.custom_system.CopyFrom(custom_system)
        return self._call("RegisterSystem", request)

    def delete_system(self, name):
        """Removes this identity's registered system `name`; NhsimError NOT_FOUND if none."""
        self._call("DeleteSystem", ensemble_pb2.DeleteSystemRequest(name=name))

    def submit(self, spec, idempotency_key=None):
        """Validates and queues an ensemble; returns its Job (state QUEUED).

        Args:
            spec: a dict in the protobuf JSON mapping of SubmitEnsembleRequest, a path of a
                JSON spec file (as examples/*.json), JSON text or a SubmitEnsembleRequest.
            idempotency_key: 1 to 128 of A-Z a-z 0-9 - _ . : (None: a random one). A submit
                that answers UNAVAILABLE is sent again with it (3 more tries, 0.25 to 1 s
                apart), and the server answers the job the first try created, if it did,
                instead of queuing another; so does a later submit with the same key.

        Raises:
            NhsimError: INVALID_ARGUMENT naming the field, RESOURCE_EXHAUSTED naming the limit,
                ALREADY_EXISTS for a key used before with another spec.
            ValueError: the spec does not parse locally.
        """
        request = load_spec(spec)
        key = idempotency_key or secrets.token_hex(16)
        for attempt in range(4):
            try:
                return Job(self, self._call("SubmitEnsemble", request,
                                            metadata=(("idempotency-key", key),)))
            except NhsimError as error:
                if error.code != "UNAVAILABLE" or attempt == 3:
                    raise
                time.sleep(0.25 * 2 ** attempt)

    def job(self, job_id):
        """The Job with this id (e.g. to follow a job submitted elsewhere)."""
        return Job(self, self._call("GetJob", ensemble_pb2.GetJobRequest(job_id=job_id)))

    def jobs(self):
        """The jobs of this identity that the server keeps, oldest first: a list of Job."""
        jobs = []
        request = ensemble_pb2.ListJobsRequest(page_size=1000)
        while True:
            page = self._call("ListJobs", request)
            jobs.extend(Job(self, proto) for proto in page.jobs)
            if not page.next_page_token:
                return jobs
            request.page_token = page.next_page_token


class Job:
    """One submitted ensemble. ``proto`` is the last nhsim.v1.Job message read from the server.

    Progress counts trajectory runs: initial conditions x integrator choices.
    """

    def __init__(self, client, proto):
        self._client = client
        self.proto = proto

    def __repr__(self):
        return (f"nhsim.Job({self.id!r}, {self.state}, "
                f"{self.trajectories_done}/{self.trajectories_total} trajectories)")

    @property
    def id(self):
        """The job id, 32 hex digits (str)."""
        return self.proto.job_id

    @property
    def state(self):
        """"QUEUED", "RUNNING", "SUCCEEDED", "FAILED" or "CANCELLED" (str)."""
        return ensemble_pb2.JobState.Name(self.proto.state)

    @property
    def trajectories_done(self):
        """Trajectory runs done (int)."""
        return self.proto.trajectories_done

    @property
    def trajectories_total(self):
        """Trajectory runs in all: initial conditions x integrator choices (int)."""
        return self.proto.trajectories_total

    @property
    def error(self):
        """Why the job FAILED ("" otherwise)."""
        return self.proto.error

    @property
    def finished(self):
        """True once the job is SUCCEEDED, FAILED or CANCELLED."""
        return self.state in TERMINAL_STATES

    def refresh(self):
        """Reads the job's current state (GetJob); returns self."""
        self.proto = self._client._call(  # pylint: disable=protected-access
            "GetJob", ensemble_pb2.GetJobRequest(job_id=self.id))
        return self

    def watch(self, progress=True, timeout=None):
        """Follows the job until it ends (WatchJob); returns self in its final state.

        Args:
            progress: draw a tqdm progress bar on stderr; only when stderr is a terminal.
            timeout: give up after this many seconds (NhsimError DEADLINE_EXCEEDED); None waits
                as long as the job runs.
        """
        from tqdm import tqdm  # pylint: disable=import-outside-toplevel

        show = bool(progress) and sys.stderr.isatty()
        request = ensemble_pb2.WatchJobRequest(job_id=self.id)
        updates = 0
        with tqdm(total=self.trajectories_total or None, unit="traj", file=sys.stderr,
                  desc=f"job {self.id[:8]}", disable=not show, dynamic_ncols=True) as bar:
            for update in self._client._stream(  # pylint: disable=protected-access
                    "WatchJob", request, timeout):
                self.proto = update
                updates += 1
                if bar.total != update.trajectories_total:
                    bar.total = update.trajectories_total
                bar.n = update.trajectories_done
                bar.set_postfix_str(self.state)  # refreshes the bar
        if updates == 0:
            self.refresh()
        return self

    def result(self):
        """The job's result (StreamResult: the chunks concatenated and parsed), as a Result.

        Raises:
            NhsimError: FAILED_PRECONDITION while the job runs, when it FAILED or was cancelled
                before it started; NOT_FOUND for an unknown or evicted job.
        """
        request = ensemble_pb2.GetResultRequest(job_id=self.id)
        data = b"".join(chunk.data for chunk in self._client._stream(  # pylint: disable=W0212
            "StreamResult", request, self._client.timeout))
        proto = ensemble_pb2.EnsembleResult()
        try:
            proto.ParseFromString(data)
        except DecodeError as error:
            raise NhsimError("DATA_LOSS",
                             f"job {self.id}: the streamed result does not parse ({error})")
        return Result(proto)

    def cancel(self):
        """Asks the job to stop (CancelJob); returns self with the state the server answered."""
        self.proto = self._client._call(  # pylint: disable=protected-access
            "CancelJob", ensemble_pb2.CancelJobRequest(job_id=self.id))
        return self

    def delete(self):
        """Removes the finished job and its result from the server (DeleteJob)."""
        self._client._call(  # pylint: disable=protected-access
            "DeleteJob", ensemble_pb2.DeleteJobRequest(job_id=self.id))
