"""Checks that need the machine, made before a worker connects (docs/operations.md, "Settings"):
the TLS context the Kafka clients will build, the address and port its web server will bind,
Faust's data directory, and that a broker setveil starts itself is not given a cluster's security.

Either would otherwise fail only after the worker had connected, as a traceback that names no
setting. Messages name settings, files and OpenSSL's reason, never a file's contents or a password.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from setveil.core.deferred import DeferredModule
from setveil.core.errors import ParameterError

if TYPE_CHECKING:
    import ssl

    from .settings import Settings
else:
    ssl = DeferredModule("ssl")  # a worker's TLS check needs it, not every command that loads the settings


def check_tls(values: Mapping[str, Any], sources: Mapping[str, str]) -> None:
    """Build the TLS context the clients will build (as aiokafka's ``create_ssl_context``
    does), so that a CA file without a certificate, a certificate without its key or a wrong key
    password is refused now rather than as a traceback at the first connection. Messages name
    files and OpenSSL's reason, never a file's contents or the password."""
    cafile, certfile = values["kafka.ssl_cafile"], values["kafka.ssl_certfile"]
    keyfile, password = values["kafka.ssl_keyfile"], values["kafka.ssl_password"]
    context = ssl.create_default_context()
    if cafile is not None:
        try:
            context.load_verify_locations(cafile=cafile)
        except OSError as exc:
            raise ParameterError("kafka.ssl_cafile", f"{cafile!r} (from {sources['kafka.ssl_cafile']}) holds no "
                                 f"usable CA certificate (PEM): {_tls_reason(exc)}") from None
    if certfile is None:
        if keyfile is not None:
            # aiokafka would ignore the key without a certificate to go with it
            raise ParameterError("kafka.ssl_keyfile", f"given (from {sources['kafka.ssl_keyfile']}) without "
                                 "kafka.ssl_certfile, the client certificate it is the key of")
        if password is not None:
            # as ignored: a forgotten certificate and key would connect without the client's own (QA)
            raise ParameterError("kafka.ssl_password", f"given (from {sources['kafka.ssl_password']}) without "
                                 "kafka.ssl_certfile, the client certificate whose private key it decrypts")
        return
    asked = []

    def passphrase() -> str:
        asked.append(True)
        # never OpenSSL's own prompt on the terminal: an encrypted key without a password is refused
        return password or ""

    try:
        context.load_cert_chain(certfile, keyfile, passphrase)
    except OSError as exc:
        raise _cert_chain_error(values, sources, bool(asked), exc) from None


def _cert_chain_error(values: Mapping[str, Any], sources: Mapping[str, str], asked: bool,
                      exc: OSError) -> ParameterError:
    """Which setting a failed ``load_cert_chain`` is about."""
    certfile, keyfile = values["kafka.ssl_certfile"], values["kafka.ssl_keyfile"]
    key_path, key_name = (keyfile, "kafka.ssl_keyfile") if keyfile is not None else (certfile, "kafka.ssl_certfile")
    if asked:
        if values["kafka.ssl_password"] is None:
            return ParameterError("kafka.ssl_password", f"needed: the private key in {key_path!r} ({key_name}, from "
                                  f"{sources[key_name]}) is encrypted")
        return ParameterError("kafka.ssl_password", f"the password (from {sources['kafka.ssl_password']}) does not "
                              f"decrypt the private key in {key_path!r} ({key_name}, from {sources[key_name]})")
    try:
        ssl.create_default_context().load_verify_locations(cafile=certfile)
    except OSError as cert_exc:
        return ParameterError("kafka.ssl_certfile", f"{certfile!r} (from {sources['kafka.ssl_certfile']}) holds no "
                              f"certificate (PEM): {_tls_reason(cert_exc)}")
    if keyfile is None:
        return ParameterError("kafka.ssl_keyfile", f"needed: kafka.ssl_certfile {certfile!r} (from "
                              f"{sources['kafka.ssl_certfile']}) holds no private key of its certificate")
    return ParameterError("kafka.ssl_keyfile", f"{keyfile!r} (from {sources['kafka.ssl_keyfile']}) holds no private "
                          f"key of the certificate in kafka.ssl_certfile: {_tls_reason(exc)}")


def _tls_reason(exc: OSError) -> str:
    """OpenSSL's reason code (``NO_CERTIFICATE_OR_CRL_FOUND``) or the system's error."""
    if isinstance(exc, ssl.SSLError):
        # a key OpenSSL cannot read comes without a reason code, as "[SSL] PEM lib (_ssl.c:3926)"
        return exc.reason or "not readable as PEM"
    return exc.strerror or type(exc).__name__


def check_own_broker(settings: Settings) -> None:
    """A command that starts its own broker when no ``kafka.bootstrap`` is set (Tansu, or a Kafka
    container) connects to it in plain text: TLS or SASL settings, which are the cluster's, would
    have every client fail as though no broker answered (QA: the demo said so of a listening one)."""
    protocol = settings.kafka.security_protocol
    if not settings.given("kafka.bootstrap") and protocol != "PLAINTEXT":
        raise ParameterError("kafka.security_protocol", f"{protocol} (from {settings.source('kafka.security_protocol')}) "
                             "is for the cluster kafka.bootstrap names, and none is set: the broker started here "
                             "takes PLAINTEXT; set kafka.bootstrap, or unset kafka.security_protocol")


def check_web_listen(settings: Settings) -> None:
    """Bind ``web.bind:web.port`` once and let go, as the worker's web server will bind it
    (aiohttp's TCPSite through asyncio's ``create_server``: every address the name resolves to,
    IPv6 ones v6-only, SO_REUSEADDR on POSIX so a port a stopped worker left in TIME_WAIT is not
    refused). An address of another machine or a port another process holds only showed after the
    worker had connected, as an OSError traceback. Only a worker (and the demo, for its worker)
    calls this: ``replay`` and ``tail`` share its settings, often while it holds the port."""
    bind, port = settings.web.bind, settings.web.port
    try:
        for family, kind, proto, _, address in socket.getaddrinfo(bind or None, port, type=socket.SOCK_STREAM,
                                                                   flags=socket.AI_PASSIVE):
            with socket.socket(family, kind, proto) as sock:
                if os.name == "posix":
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
    except OSError as exc:
        raise web_listen_refusal(settings, exc) from None


def web_listen_refusal(settings: Settings, exc: OSError) -> ParameterError:
    """The setting at fault when the web server cannot listen: found by :func:`check_web_listen`,
    or by the server's own bind when another process took the port after that check."""
    bind, port = settings.web.bind, settings.web.port
    if exc.errno == errno.EADDRINUSE:
        return ParameterError("web.port", f"{port} (from {settings.source('web.port')}) is in use on {bind} by "
                              "another process; allowed: a free port in [1, 65535]")
    if exc.errno == errno.EADDRNOTAVAIL:
        return ParameterError("web.bind", f"{bind!r} (from {settings.source('web.bind')}) is no address of this "
                              "machine to listen on")
    if exc.errno == errno.EACCES:
        return ParameterError("web.port", f"{port} (from {settings.source('web.port')}): not permitted to listen "
                              "on it (ports below 1024 need privileges)")
    return ParameterError("web.bind", f"cannot listen on {bind!r} (from {settings.source('web.bind')}), port "
                          f"{port} (from {settings.source('web.port')}): {exc.strerror or exc}")


def check_data_dir(settings: Settings) -> None:
    """``worker.data_dir``, which Faust creates (with its parents) once the worker has connected,
    and otherwise fails on with a traceback. Only a worker calls this: ``replay`` and ``tail``
    share its settings but not its machine."""
    path = settings.worker.data_dir
    if not path:
        # the worker then makes a temporary one: on a read-only root without a writable /tmp (a
        # Kubernetes readOnlyRootFilesystem without the emptyDir) its start ended in a traceback,
        # and the model.time_limit window process, already started, kept it from exiting
        try:
            tempfile.gettempdir()
        except OSError as exc:
            raise no_temporary_dir(exc) from None
        return
    problem = _data_dir_problem(path)
    if problem is not None:
        raise ParameterError("worker.data_dir", f"{path!r} (from {settings.source('worker.data_dir')}) {problem}; "
                             "allowed: a directory the worker may write, or one it may create")


def no_temporary_dir(exc: OSError) -> ParameterError:
    """An unset ``worker.data_dir`` where no temporary directory can be made: found by
    :func:`check_data_dir`, or as the worker makes it, when the directory went after that check."""
    return ParameterError("worker.data_dir", f"not set, so Faust's data goes in a temporary directory, and there is "
                          f"none: {exc.strerror}; allowed: a directory the worker may write, or one it may create, "
                          "or TMPDIR naming one")


def data_dir_refusal(settings: Settings, exc: OSError) -> ParameterError:
    """Faust's failure to create a directory of its data, when ``worker.data_dir`` changed after
    :func:`check_data_dir` (another process, a volume mounted read-only). Paths only."""
    path = settings.worker.data_dir
    where = f"{path!r} (from {settings.source('worker.data_dir')})" if path else "not set, so in a temporary one"
    return ParameterError("worker.data_dir", f"{where}: Faust cannot create {exc.filename} "
                          f"({exc.strerror or type(exc).__name__}); allowed: a directory the worker may write, "
                          "or one it may create")


def _data_dir_problem(path: str) -> str | None:
    """Why the worker could not use ``path`` as Faust's data directory (Faust creates it, but not
    its parents), or None."""
    path = os.path.expanduser(path)
    if os.path.lexists(path) and not os.path.exists(path):
        return "is a symbolic link to nothing (or a loop of them)"
    if os.path.exists(path):
        if not os.path.isdir(path):
            return "is not a directory"
        if not os.access(path, os.W_OK | os.X_OK):
            return "is not writable"
        # root passes every access check, also in /proc and /sys, where nothing can be written
        try:
            tempfile.TemporaryFile(dir=path).close()
        except OSError as exc:
            return f"is not writable ({exc.strerror or type(exc).__name__})"
        return None
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(parent):
        return f"cannot be created: its parent {parent} does not exist (Faust creates the directory, not its parents)"
    if not os.path.isdir(parent):
        return f"cannot be created: {parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot be created: {parent} is not writable"
    try:
        os.mkdir(path)
    except OSError as exc:
        return f"cannot be created in {parent} ({exc.strerror or type(exc).__name__})"
    os.rmdir(path)
    return None


#: the topic Faust's leader assignor creates for a consumer group: ``<group_id>`` + this
LEADER_TOPIC_SUFFIX = "-__assignor-__leader"


def check_group_id(settings: Settings) -> None:
    """``consumer.group_id``, which Faust also names a topic after, and refuses only once the
    worker has connected (an empty one: "App requires an id!"). Only a worker calls this."""
    from .settings import TOPIC_NAME  # here: settings imports this module

    group = settings.consumer.group_id
    if not group or not TOPIC_NAME.fullmatch(group + LEADER_TOPIC_SUFFIX):
        raise ParameterError("consumer.group_id", f"{group!r} (from {settings.source('consumer.group_id')}) cannot "
                             f"name the group's topic {group + LEADER_TOPIC_SUFFIX!r}; allowed: "
                             f"1-{249 - len(LEADER_TOPIC_SUFFIX)} of a-z, A-Z, 0-9, '.', '_', '-'")
