"""The gRPC client of nhsimd: Client (a connection) and Job (one submitted ensemble).

Every call that the server answers with an error raises NhsimError, which carries the gRPC
status code name (``"INVALID_ARGUMENT"``, ``"UNAUTHENTICATED"``, ...) and the server's message
(e.g. ``"integrators[0].h: must be finite and > 0"``).
"""

import difflib
import json
import os
import pathlib
import secrets
import time

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError

from nhsim._stubs import ensemble_pb2, ensemble_pb2_grpc
from nhsim.catalogue import System, integrators_frame, parameters_frame, systems_frame
from nhsim.progress import Progress, mode_of
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
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: {error}") from error
    _parse_dict(spec, request, where)
    return request


def spec_units(spec):
    """The units a spec gives to observables: {invariant name: unit} of its custom_system's
    invariants that carry one, and the same for ``invariant_error[NAME]``.

    Args:
        spec: a dict in the protobuf JSON mapping, a path or JSON text (nhsim.load_spec), or a
            SubmitEnsembleRequest.
    Returns:
        dict str -> str (empty for a catalogue system).
    """
    units = {}
    for invariant in load_spec(spec).custom_system.invariants:
        if invariant.unit:
            units[invariant.name] = invariant.unit
            units[f"invariant_error[{invariant.name}]"] = invariant.unit
    return units


def _unknown_fields(value, descriptor, path):
    """The first key of the dict `value` (and its nested dicts and lists) that is no field of
    the message type `descriptor`: (its path, the type's snake_case field names), or None."""
    if not isinstance(value, dict) or descriptor.full_name.startswith("google.protobuf."):
        return None
    fields = {}
    for field in descriptor.fields:
        fields[field.name] = fields[field.json_name] = field
    for key, item in value.items():
        where = f"{path}.{key}" if path else str(key)
        field = fields.get(key)
        if field is None:
            return where, [f.name for f in descriptor.fields]
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            if value_field.message_type is not None and isinstance(item, dict):
                for k, v in item.items():
                    found = _unknown_fields(v, value_field.message_type, f"{where}.{k}")
                    if found:
                        return found
        elif field.label == field.LABEL_REPEATED and isinstance(item, list):
            for i, element in enumerate(item):
                found = _unknown_fields(element, field.message_type, f"{where}[{i}]")
                if found:
                    return found
        else:
            found = _unknown_fields(item, field.message_type, where)
            if found:
                return found
    return None


def _parse_dict(spec, message, where):
    """json_format.ParseDict with errors in the specs' own (snake_case) field names.

    Raises:
        ValueError: ``WHERE: t_fnal: unknown field (did you mean t_final?); the fields of
            SubmitEnsembleRequest: system, parameters, ...``, or ParseDict's message.
    """
    found = _unknown_fields(spec, message.DESCRIPTOR, "")
    if found:
        path, names = found
        key = path.rsplit(".", 1)[-1].split("[", 1)[0]
        close = difflib.get_close_matches(key, names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(f"{where}: {path}: unknown field{hint}; the fields there: "
                         f"{', '.join(names)}")
    try:
        json_format.ParseDict(spec, message)
    except json_format.ParseError as error:
        raise ValueError(f"{where}: {error}") from error


class Client:
    """A connection to nhsimd (nhsim.v1.EnsembleService).

    Args:
        address: "host:port" of the server; None = the environment variable NHSIM_SERVER, if
            set, else 127.0.0.1:50051 (as the nhsim CLI).
        token: the bearer token; None = the environment variable NHSIM_TOKEN, if set. Sent as
            the metadata ``authorization: Bearer <token>`` on every call.
        tls: True for TLS with the system's CA certificates (also implied by tls_ca/tls_cert).
        tls_ca: the CA certificates (PEM) that signed the server's certificate: a path or bytes.
        tls_cert, tls_key: the client's certificate chain and private key (PEM, path or bytes)
            for mutual TLS.
        timeout: deadline of each call in seconds (watching a job has none by default).

    Use as a context manager, or call close(), to release the channel.
    """

    def __init__(self, address=None, token=None, tls=False, tls_ca=None,
                 tls_cert=None, tls_key=None, timeout=60):
        if address is None:
            address = os.environ.get("NHSIM_SERVER") or _DEFAULT_ADDRESS
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

    def _system_infos(self):
        return list(self._call("ListSystems", ensemble_pb2.ListSystemsRequest()).systems)

    def systems(self):
        """The systems the server runs, as a pandas DataFrame with one row per system.

        Columns (nhsim.catalogue.SYSTEM_COLUMNS): name, description, source (where the equations
        come from), parameters, invariants and integrators (tuples of names),
        newton_tol_defaults ({integrator: tol}). parameters() has the parameters' units,
        defaults and ranges; system(name) one system as an nhsim.System dataclass.

        Raises:
            NhsimError: e.g. UNAUTHENTICATED, UNAVAILABLE.
        """
        return systems_frame(self._system_infos())

    def system(self, name):
        """One system as an nhsim.System dataclass (parameters as nhsim.Parameter).

        Raises:
            KeyError: the server has no system of that name (for this identity).
        """
        for info in self._system_infos():
            if info.name == name:
                return System.from_proto(info)
        raise KeyError(f"system {name!r}: not on the server (client.systems() lists them)")

    def parameters(self, system=None):
        """The systems' parameters, as a DataFrame with one row per system x parameter.

        Columns (nhsim.catalogue.PARAMETER_COLUMNS): system, name, unit ("1": dimensionless),
        default, min, max (inclusive bounds, in that unit), integer, description.

        Args:
            system: only this system's parameters (None: every system's).
        """
        frame = parameters_frame(self._system_infos())
        if system is not None:
            frame = frame[frame["system"] == system].reset_index(drop=True)
        return frame

    def integrators(self):
        """The integrators the server knows, as a DataFrame with one row per integrator.

        Columns (nhsim.catalogue.INTEGRATOR_COLUMNS): name, order (int), implicit,
        energy_preserving (bool), requirements (tuple of str), default_newton_tol,
        default_newton_max_iter (0 where there is no Newton solve), description, source.
        """
        return integrators_frame(self._call("ListIntegrators",
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
            The registered system as an nhsim.System dataclass (integrators that apply,
            invariants, parameters).

        Raises:
            NhsimError: INVALID_ARGUMENT naming the field (``name`` or ``custom_system.…``),
                ALREADY_EXISTS when this identity has a system of that name.
            ValueError: custom_system does not parse locally (snake_case field names).
        """
        request = ensemble_pb2.RegisterSystemRequest(name=name, description=description)
        if isinstance(custom_system, dict):
            _parse_dict(custom_system, request.custom_system, "custom_system")
        else:
            request.custom_system.CopyFrom(custom_system)
        return System.from_proto(self._call("RegisterSystem", request))

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
                job = Job(self, self._call("SubmitEnsemble", request,
                                           metadata=(("idempotency-key", key),)))
                job.spec = request
                return job
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

    Progress counts trajectory runs (initial conditions x integrator choices) and
    trajectory-steps, which advance within long trajectories.
    """

    def __init__(self, client, proto):
        self._client = client
        self.proto = proto
        #: The SubmitEnsembleRequest this client submitted (None for a job looked up by id).
        self.spec = None

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
    def steps_done(self):
        """Trajectory-steps taken (int); a trajectory that ends early counts its remaining
        steps, and a job that has ended counts steps_total."""
        return self.proto.steps_done

    @property
    def steps_total(self):
        """Trajectory-steps in all: trajectories x the sum of t_final / h over the choices
        (and a sweep's cases) (int)."""
        return self.proto.steps_total

    @property
    def error(self):
        """Why the job FAILED ("" otherwise)."""
        return self.proto.error

    @property
    def waiting_reason(self):
        """While QUEUED, why the job has not started, as of the last refresh ("" otherwise),
        e.g. "every runner is busy (--max-running-jobs 2); 1 job queued before it"."""
        return self.proto.waiting_reason

    @property
    def finished(self):
        """True once the job is SUCCEEDED, FAILED or CANCELLED."""
        return self.state in TERMINAL_STATES

    def refresh(self):
        """Reads the job's current state (GetJob); returns self."""
        self.proto = self._client._call(  # pylint: disable=protected-access
            "GetJob", ensemble_pb2.GetJobRequest(job_id=self.id))
        return self

    def watch(self, progress=True, timeout=None, callback=None, every=2.0):
        """Follows the job until it ends (WatchJob); returns self in its final state.

        Args:
            progress: True (the default) shows the progress where the output goes
                (nhsim.progress): in a notebook tqdm.auto's bar and a final line; on a terminal
                a tqdm bar on stderr; elsewhere (stderr redirected) plain lines on stderr,
                ``job 1a2b3c4d: 16/64 trajectories (25 %), RUNNING``, at most one every 5 s.
                "bar" or "text" forces that front end; False or "none" shows nothing. The
                counter never goes backwards (a cancel's late update does not lower it).
            timeout: give up after this many seconds (NhsimError DEADLINE_EXCEEDED); None waits
                as long as the job runs.
            callback: called as ``callback(job, result)`` with the statistics so far
                (``result(partial=True)``, ``result.partial`` True) each time the job has
                checkpointed more trajectories, at most once every `every` seconds, and last
                with the job's result when it ends SUCCEEDED or CANCELLED with one. For a live
                plot (nhsim.plot.LivePlot) or a log of the estimates as they converge.
            every: seconds between two looks at the statistics so far (the server has new ones
                about every --checkpoint-seconds of work).

        Raises:
            NhsimError: NOT_FOUND for an unknown job, DEADLINE_EXCEEDED after `timeout`.
        """
        request = ensemble_pb2.WatchJobRequest(job_id=self.id)
        updates = 0
        live = _LiveResults(self, callback, every)
        with Progress(f"job {self.id[:8]}", mode_of(progress)) as shown:
            for update in self._client._stream(  # pylint: disable=protected-access
                    "WatchJob", request, timeout):
                self.proto = update
                updates += 1
                shown.update(update.trajectories_done, update.trajectories_total, self.state,
                             update.steps_done, update.steps_total)
                live.look()
            if updates == 0:
                self.refresh()
                shown.update(self.trajectories_done, self.trajectories_total, self.state,
                             self.steps_done, self.steps_total)
        live.finish()
        return self

    def result(self, partial=False):
        """The job's result (StreamResult: the chunks concatenated and parsed), as a Result
        whose ``units`` hold the units of the submitted spec's custom invariants.

        Args:
            partial: for a running job, its statistics so far: those of the trajectories its
                latest checkpoint holds, bit for bit the result of the spec cut to its first
                ``result.n_trajectories`` (``result.partial`` True). For a job that has ended,
                its result either way.

        Raises:
            NhsimError: FAILED_PRECONDITION while the job runs (with `partial`: while it is
                queued or before its first checkpoint), when it FAILED or was cancelled before
                it started; NOT_FOUND for an unknown or evicted job.
        """
        request = ensemble_pb2.GetResultRequest(job_id=self.id, partial=partial)
        data = b"".join(chunk.data for chunk in self._client._stream(  # pylint: disable=W0212
            "StreamResult", request, self._client.timeout))
        proto = ensemble_pb2.EnsembleResult()
        try:
            proto.ParseFromString(data)
        except DecodeError as error:
            raise NhsimError("DATA_LOSS",
                             f"job {self.id}: the streamed result does not parse ({error})")
        units = {}
        if self.spec is not None:
            units = spec_units(self.spec)
        return Result(proto, units)

    def cancel(self):
        """Asks the job to stop (CancelJob); returns self with the state the server answered."""
        self.proto = self._client._call(  # pylint: disable=protected-access
            "CancelJob", ensemble_pb2.CancelJobRequest(job_id=self.id))
        return self

    def delete(self):
        """Removes the finished job and its result from the server (DeleteJob)."""
        self._client._call(  # pylint: disable=protected-access
            "DeleteJob", ensemble_pb2.DeleteJobRequest(job_id=self.id))


class _LiveResults:
    """Job.watch's callback: the statistics so far of the watched job, when it has more."""

    def __init__(self, job, callback, every):
        self._job = job
        self._callback = callback
        self._every = every
        self._last_look = None
        self._shown = 0  # trajectories of the last result passed on

    def look(self):
        """Passes on the statistics so far if `every` seconds have passed and there are more."""
        if self._callback is None or self._job.state != "RUNNING":
            return
        now = time.monotonic()
        if self._last_look is not None and now - self._last_look < self._every:
            return
        self._last_look = now
        try:
            result = self._job.result(partial=True)
        except NhsimError as error:
            if error.code == "FAILED_PRECONDITION":  # no checkpoint yet, or it just ended
                return
            raise
        if result.partial and result.n_trajectories > self._shown:
            self._shown = result.n_trajectories
            self._callback(self._job, result)

    def finish(self):
        """Passes on the job's result, if it ended with one."""
        if self._callback is not None and self._job.state in ("SUCCEEDED", "CANCELLED"):
            try:
                result = self._job.result()
            except NhsimError as error:
                if error.code == "FAILED_PRECONDITION":  # cancelled before it started
                    return
                raise
            self._callback(self._job, result)
