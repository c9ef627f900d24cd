"""Object storage as the data root (``RASKLAD_DATA=s3://bucket/prefix``), beside the local folder.

The layout is the local one (``storage.layout``) with keys for paths. Two clients, each for what
it does well (the choice is argued in docs/storage.md):

* **obstore** (Rust ``object_store``) for every write, listing and whole-object read: a shard is
  one ``PutObject`` (``use_multipart=False``: the object is whole or absent, and a retried shard
  simply overwrites itself), markers are created with ``If-None-Match: *`` (``mode="create"``),
  listings follow ``ListObjectsV2`` continuation tokens (more than 1,000 keys), and every request
  is retried with exponential backoff on 5xx answers, connection errors and timeouts.
* **pyarrow's S3FileSystem** only to *read* Parquet lazily as ``pyarrow.dataset`` datasets (column
  projection, ranged reads): the report, exports and the DuckDB views of ``storage.query``. It gets
  the same endpoint, credentials, timeout and retry budget.

:class:`ObjectPath` offers the handful of ``pathlib`` methods the layout code uses (``/``,
``name``, ``exists``, ``read_bytes``, ``write_bytes``, ``glob`` of one level, ``iterdir``), so
code written for a job directory serves both kinds of root; what differs (atomic local renames
versus single PUTs, create-only markers) is decided once here in :func:`write_atomic` and
:func:`create_once`.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import logging
import os
import random
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Union

import pyarrow as pa
import pyarrow.parquet as pq

from storage.layout import SCHEMES, is_object_url, object_url

# obstore and pyarrow.fs are imported by an object-store root alone (``ObjectRoot``): a local data root
# never loads them, about 25 ms of CPU of every job's fixed cost (issue 30 item 4).
if TYPE_CHECKING:
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs
    from obstore.store import ClientConfig, RetryConfig, S3Config

    from sims.settings import Settings

__all__ = ["SCHEMES", "Location", "ObjectPath", "ObjectRoot", "StoreConfig", "StoreUnavailable", "create_once",
           "data_root", "describe_error", "fetch_all", "is_object_url", "open_root", "outage_since", "parquet_dataset",
           "parquet_rows", "read_parquet_files", "read_stream", "write_atomic"]

_STREAM_CHUNK = 1 << 20
log = logging.getLogger("rasklad.storage")
_T = TypeVar("_T")


class StoreUnavailable(OSError):
    """The object store did not answer for the whole outage budget (``StoreConfig.outage_s``,
    ``RASKLAD_S3_OUTAGE_S``); the message is one readable line naming the store and the last error."""


def _unanswered_types() -> tuple[type[BaseException], ...]:
    """What a request raises when the store did not answer (5xx answers once the client's own retries are
    spent, refused connections, timeouts), as opposed to an answer (404, 403, 412: their own classes);
    pyarrow's S3 client raises a plain OSError naming the AWS error (``_unanswered`` tells them apart)."""
    from obstore.exceptions import GenericError

    return (GenericError, OSError)
_STATUS = re.compile(r"status code: (\d{3})")
_ARROW_STATUS = re.compile(r"HTTP status (\d{3})")
_ARROW_UNANSWERED = ("NETWORK_CONNECTION", "SLOW_DOWN", "SERVICE_UNAVAILABLE", "REQUEST_TIMEOUT", "INTERNAL_FAILURE")


def describe_error(e: BaseException) -> str:
    """One readable line for an object-store error: obstore's message ends in a multi-line debug dump
    of the request and the server's XML body, which is what made a raw traceback unreadable."""
    text = " ".join(str(e).split("\n\nDebug source")[0].split())
    reason = text.rsplit(" - ", 1)[-1] if " - " in text else text  # after the request's description
    reason = reason.split("<?xml")[0].split("<Error>")[0].strip(" :")
    return (reason or type(e).__name__)[:200]


def _unanswered(e: BaseException) -> bool:
    """Whether ``e`` means the store did not answer (worth waiting for), not that it refused (a 4xx)."""
    from obstore.exceptions import GenericError

    if isinstance(e, StoreUnavailable) or not isinstance(e, _unanswered_types()):
        return False
    if isinstance(e, (ConnectionError, TimeoutError)):
        return True
    text = str(e)
    if not isinstance(e, GenericError):  # pyarrow: "AWS Error NETWORK_CONNECTION ...", "(HTTP status 503)"
        arrow = _ARROW_STATUS.search(text)
        return "AWS Error" in text and (any(w in text for w in _ARROW_UNANSWERED) or (
            arrow is not None and int(arrow.group(1)) >= 500))
    m = _STATUS.search(text)
    return m is None or not (400 <= int(m.group(1)) < 500) or int(m.group(1)) in (408, 429)


#: Root URL -> when (``time.time()``) the outage this process waits out began: one line is logged
#: when it begins (not one per request or thread), and the workers' task retries carry it on.
_outages: dict[str, float] = {}
#: Roots whose outage this process has announced (its recovery is announced only then).
_announced: set[str] = set()
_outage_lock = threading.Lock()


def outage_since(url: str | None = None) -> float | None:
    """When the object-store outage this process is waiting out began (``time.time()``), for the root
    ``url`` or any; None while the store answers."""
    with _outage_lock:
        return _outages.get(url) if url is not None else min(_outages.values(), default=None)


@dataclass(frozen=True)
class StoreConfig:
    """How to reach the object store: endpoint, region, credentials and the retry budget.

    ``None`` fields are left to the clients' defaults (AWS's endpoint for the region, the
    instance's credentials). ``retries`` and ``timeout_s`` apply to every request of both clients.
    """

    endpoint: str | None = None
    region: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    session_token: str | None = None
    retries: int = 10
    timeout_s: float = 30.0
    #: How long a request waits out a store that does not answer before StoreUnavailable (0: it fails
    #: with the client's error at once, as the API wants).
    outage_s: float = 0.0


class ObjectRoot:
    """A bucket and key prefix (``s3://bucket/prefix``) and the clients that reach it."""

    def __init__(self, url: str, config: StoreConfig) -> None:
        from obstore.store import S3Store

        if not is_object_url(url):
            raise ValueError(f"not an object-store URL: {url!r} (expected s3://bucket/prefix)")
        rest = url[len("s3://"):].strip("/")
        bucket, _, prefix = rest.partition("/")
        if not bucket:
            raise ValueError(f"object-store URL {url!r} names no bucket (expected s3://bucket/prefix)")
        self.url = "s3://" + rest
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.config = config
        opts: S3Config = {"conditional_put": "etag"}  # If-None-Match: * for mode="create"
        if config.endpoint:
            opts["endpoint"] = config.endpoint
            opts["virtual_hosted_style_request"] = False  # MinIO, moto: bucket in the path
        if config.region:
            opts["region"] = config.region
        if config.access_key:
            opts["access_key_id"] = config.access_key
        if config.secret_key:
            opts["secret_access_key"] = config.secret_key
        if config.session_token:
            opts["session_token"] = config.session_token
        # object_store retries 5xx, connection errors and timeouts with exponential backoff
        # (jittered) until max_retries or retry_timeout, whichever comes first.
        retry: RetryConfig = {
            "max_retries": config.retries,
            "retry_timeout": timedelta(seconds=config.timeout_s * (config.retries + 1)),
            "backoff": {"init_backoff": timedelta(milliseconds=100), "max_backoff": timedelta(seconds=5), "base": 2.0},
        }
        client: ClientConfig = {"timeout": timedelta(seconds=config.timeout_s),
                                "connect_timeout": timedelta(seconds=min(10.0, config.timeout_s)),
                                "allow_http": bool(config.endpoint and config.endpoint.startswith("http://"))}
        self.store = S3Store(bucket, prefix=self.prefix or None, config=opts, retry_config=retry,
                             client_options=client)

    def __repr__(self) -> str:
        return f"ObjectRoot({self.url!r})"

    @functools.cached_property
    def arrow_fs(self) -> pafs.S3FileSystem:
        """pyarrow's S3 client with the same endpoint, credentials and retry budget (for reads)."""
        import pyarrow.fs as pafs

        c = self.config
        kwargs: dict[str, Any] = {
            "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=c.retries + 1),
            "connect_timeout": min(10.0, c.timeout_s), "request_timeout": c.timeout_s,
        }
        if c.endpoint:
            scheme, _, host = c.endpoint.partition("://")
            kwargs.update(endpoint_override=host or scheme, scheme=scheme if host else "https",
                          force_virtual_addressing=False)
        if c.region:
            kwargs["region"] = c.region
        if c.access_key and c.secret_key:
            kwargs.update(access_key=c.access_key, secret_key=c.secret_key, session_token=c.session_token)
        return pafs.S3FileSystem(**kwargs)

    def arrow_path(self, key: str) -> str:
        """``bucket/prefix/key``: the path pyarrow's S3FileSystem wants."""
        return "/".join(p for p in (self.bucket, self.prefix, key) if p)

    def path(self, key: str = "") -> ObjectPath:
        """The :class:`ObjectPath` of ``key`` under this root."""
        return ObjectPath(self, key.strip("/"))

    # -- outages -------------------------------------------------------------------------------
    def outage_began(self, since: float) -> None:
        """Count the outage budget from ``since`` (an earlier attempt's, e.g. a retried task's) unless
        this process already waits one out; the first answer of the store forgets it."""
        with _outage_lock:
            _outages.setdefault(self.url, since)

    def _patiently(self, fn: Callable[[], _T]) -> _T:
        """``fn()`` (one request, with the client's own retries), repeated while the store does not
        answer, with jittered backoff up to 15 s, until ``config.outage_s`` have passed since the
        outage began: then StoreUnavailable. One line when an outage begins (per process, not per
        request or retry), one when the store answers again; a refusal (4xx) or a missing object is
        raised at once, and with ``outage_s`` 0 every error is."""
        attempt = 0
        while True:
            try:
                out = fn()
            except _unanswered_types() as e:
                if self.config.outage_s <= 0 or not _unanswered(e):
                    raise
                with _outage_lock:
                    since = _outages.setdefault(self.url, time.time())
                    if self.url not in _announced:
                        _announced.add(self.url)
                        log.warning("the object store %s does not answer (%s): waiting up to %.0f s for it "
                                    "(RASKLAD_S3_OUTAGE_S); jobs go on by themselves when it is back",
                                    self.url, describe_error(e), self.config.outage_s)
                waited = time.time() - since
                if waited >= self.config.outage_s:
                    raise StoreUnavailable(f"the object store {self.url} did not answer for {waited:.0f} s "
                                           f"(RASKLAD_S3_OUTAGE_S={self.config.outage_s:g}): {describe_error(e)}"
                                           ) from None
                time.sleep(min(self.config.outage_s - waited, random.uniform(0.5, 1.0) * min(15.0, 2.0 ** attempt)))
                attempt += 1
                continue
            if self.url in _outages:
                with _outage_lock:
                    began = _outages.pop(self.url, None)
                    announced = self.url in _announced
                    _announced.discard(self.url)
                if began is not None and announced:
                    log.warning("the object store %s answers again after %.0f s", self.url, time.time() - began)
            return out

    # -- requests -----------------------------------------------------------------------------
    def put(self, key: str, data: bytes | memoryview, *, create_only: bool = False) -> bool:
        """One PutObject of ``data`` at ``key``; with ``create_only``, only if no object is there.

        Returns False when ``create_only`` and the key exists (412), True when written. The client
        retries plain PUTs itself; a create-only PUT is not idempotent, so the client gives up on
        its first timeout and the retries (same budget and backoff) are done here. After such an
        ambiguous failure a retry may find the object its own lost answer had created and report
        False: callers compare contents (``storage.parquet.commit_marker`` does).
        """
        body = bytes(data)
        return self._patiently(lambda: self._put(key, body, create_only))

    def _put(self, key: str, body: bytes, create_only: bool) -> bool:
        import obstore
        from obstore.exceptions import AlreadyExistsError, GenericError, PreconditionError

        for attempt in range(self.config.retries + 1):
            try:
                obstore.put(self.store, key, body, use_multipart=False, mode="create" if create_only else None)
                return True
            except (AlreadyExistsError, PreconditionError):
                if create_only:
                    return False
                raise
            except (GenericError, OSError):
                if not create_only or attempt >= self.config.retries:
                    raise
                time.sleep(random.uniform(0, min(5.0, 0.1 * 2 ** attempt)))  # full jitter
        raise AssertionError("unreachable")

    def get(self, key: str) -> bytes:
        """The whole object at ``key``; FileNotFoundError when there is none."""
        import obstore
        from obstore.exceptions import NotFoundError

        try:
            return self._patiently(lambda: bytes(obstore.get(self.store, key).bytes()))
        except NotFoundError:
            raise FileNotFoundError(f"{self.url}/{key}") from None

    def stream(self, key: str, chunk: int = _STREAM_CHUNK) -> Iterator[bytes]:
        """The object at ``key`` in chunks of about ``chunk`` bytes, as they arrive."""
        import obstore
        from obstore.exceptions import NotFoundError

        try:
            result = self._patiently(lambda: obstore.get(self.store, key))
        except NotFoundError:
            raise FileNotFoundError(f"{self.url}/{key}") from None
        for part in result.stream(min_chunk_size=chunk):
            yield bytes(part)

    def size(self, key: str) -> int | None:
        """Size of the object at ``key``, or None when there is none (one HEAD request)."""
        import obstore
        from obstore.exceptions import NotFoundError

        try:
            return int(self._patiently(lambda: obstore.head(self.store, key))["size"])
        except (NotFoundError, FileNotFoundError):
            return None

    def list_objects(self, prefix: str) -> Iterator[tuple[str, int]]:
        """(key, size) of every object under ``prefix`` (the client pages through 1,000 at a time; the
        whole listing is taken before the first is yielded, so an outage mid-listing starts it again)."""
        import obstore

        def listing() -> list[tuple[str, int]]:
            return [(str(meta["path"]), int(meta["size"]))
                    for page in obstore.list(self.store, prefix.strip("/") + "/" if prefix else None) for meta in page]

        yield from self._patiently(listing)

    def children(self, prefix: str) -> tuple[list[str], list[str]]:
        """(sub-prefixes, object keys) directly under ``prefix`` (one level, like ``ls``)."""
        import obstore

        result = self._patiently(lambda: obstore.list_with_delimiter(self.store, prefix.strip("/") or None))
        return [str(p) for p in result["common_prefixes"]], [str(o["path"]) for o in result["objects"]]

    def delete(self, key: str) -> None:
        """Delete the object at ``key`` (no error when it is absent)."""
        import obstore
        from obstore.exceptions import NotFoundError

        with contextlib.suppress(NotFoundError, FileNotFoundError):
            self._patiently(lambda: obstore.delete(self.store, key))


@functools.cache
def open_root(url: str, config: StoreConfig) -> ObjectRoot:
    """The (per process, shared) :class:`ObjectRoot` of ``url`` with ``config``."""
    return ObjectRoot(url, config)


class ObjectPath:
    """A key under an :class:`ObjectRoot`, with the few ``pathlib.Path`` methods the layout uses.

    ``str()`` gives the ``s3://`` URL. A "directory" is a key prefix: it exists while some
    object lies under it, and ``mkdir`` has nothing to do.
    """

    __slots__ = ("key", "root")

    def __init__(self, root: ObjectRoot, key: str) -> None:
        self.root = root
        self.key = key

    def __truediv__(self, part: str | Path) -> ObjectPath:
        part = str(part).strip("/")
        return ObjectPath(self.root, f"{self.key}/{part}" if self.key else part)

    def __str__(self) -> str:
        return f"{self.root.url}/{self.key}" if self.key else self.root.url

    def __repr__(self) -> str:
        return f"ObjectPath({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectPath) and (other.root.url, other.key) == (self.root.url, self.key)

    def __hash__(self) -> int:
        return hash((self.root.url, self.key))

    @property
    def name(self) -> str:
        return self.key.rsplit("/", 1)[-1]

    @property
    def parent(self) -> ObjectPath:
        return ObjectPath(self.root, self.key.rsplit("/", 1)[0] if "/" in self.key else "")

    def with_name(self, name: str) -> ObjectPath:
        return self.parent / name

    def is_file(self) -> bool:
        return self.root.size(self.key) is not None

    def is_dir(self) -> bool:
        dirs, files = self.root.children(self.key)
        return bool(dirs or files)

    def exists(self) -> bool:
        return self.is_file() or self.is_dir()

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        """Nothing to do: a prefix exists once an object is put under it."""

    def read_bytes(self) -> bytes:
        return self.root.get(self.key)

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.read_bytes().decode(encoding)

    def write_bytes(self, data: bytes | memoryview) -> int:
        """One PutObject: readers see the old object or the new one, never part of it."""
        self.root.put(self.key, data)
        return len(data)

    def write_text(self, text: str, encoding: str = "utf-8") -> int:
        return self.write_bytes(text.encode(encoding))

    def unlink(self, missing_ok: bool = False) -> None:
        self.root.delete(self.key)

    def iterdir(self) -> Iterator[ObjectPath]:
        """Sub-prefixes and objects directly under this prefix."""
        dirs, files = self.root.children(self.key)
        for key in sorted([*dirs, *files]):
            yield ObjectPath(self.root, key.strip("/"))

    def glob(self, pattern: str) -> Iterator[ObjectPath]:
        """Objects directly under this prefix whose name matches ``pattern`` (one level only)."""
        if "/" in pattern:
            raise ValueError(f"ObjectPath.glob takes a one-level pattern, not {pattern!r}")
        for key, _size in self.root.list_objects(self.key):
            name = key[len(self.key) + 1:] if self.key else key
            if "/" not in name and fnmatch.fnmatchcase(name, pattern):
                yield ObjectPath(self.root, key)

    def stream(self, chunk: int = _STREAM_CHUNK) -> Iterator[bytes]:
        return self.root.stream(self.key, chunk)


Location = Union[Path, ObjectPath]  # noqa: UP007 - a runtime alias, used in isinstance-free annotations
"""A job directory or file: a local path or a key in the object store."""


def data_root(settings: Settings) -> Location:
    """The data root of ``settings``: a local folder, or the :class:`ObjectPath` of its URL."""
    if is_object_url(settings.data):
        return open_root(object_url(settings.data), settings.store_config()).path("")
    return Path(settings.data)


def write_atomic(path: Location, data: bytes) -> None:
    """Write ``data`` so that a reader sees the old file or the new one, never part of either.

    Local: a temporary sibling (never matching the shard glob), fsync, rename, fsync of the
    directory. Object store: one PutObject.
    """
    if isinstance(path, ObjectPath):
        path.write_bytes(data)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def create_once(path: Location, data: bytes) -> bool:
    """Create ``path`` with ``data`` only if nothing is there; True if this call created it.

    Object store: ``PutObject`` with ``If-None-Match: *`` (the store decides between racers).
    Local: the bytes go to a temporary file that is then hard-linked to ``path``, which fails
    when ``path`` exists, so here too exactly one racer wins and nobody sees a partial file.
    """
    if isinstance(path, ObjectPath):
        return path.root.put(path.key, data, create_only=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    _fsync_dir(path.parent)
    return True


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def parquet_dataset(paths: list[Location], sizes: dict[str, int] | None = None) -> ds.Dataset:
    """A lazy ``pyarrow.dataset`` over Parquet files that are all local or all in one object store.

    On an object store the fragments are made with their sizes (from ``sizes``, keyed by object
    key, else one listing of their folders) and the schema from the first file, so opening the
    dataset costs no HEAD request per file; scans then fetch footers and column chunks
    concurrently (pyarrow's I/O thread pool).
    """
    # Imported here: pyarrow.dataset imports pandas, about half a second that a job writing its shards
    # and report never needs (issue 30 item 4: a job's fixed cost); queries pay it.
    import pyarrow.dataset as ds

    objects = [p for p in paths if isinstance(p, ObjectPath)]
    if not objects:
        return ds.dataset([str(p) for p in paths], format="parquet")
    if len(objects) != len(paths) or len({p.root.url for p in objects}) != 1:
        raise ValueError("parquet_dataset: files must be all local or all in one object store")
    root = objects[0].root
    if sizes is None:
        sizes = {}
        for folder in sorted({p.parent.key for p in objects}):
            sizes.update(root.list_objects(folder))
    fmt = ds.ParquetFileFormat()
    fragments = [fmt.make_fragment(root.arrow_path(p.key), root.arrow_fs, file_size=sizes.get(p.key))
                 for p in objects]
    schema = root._patiently(lambda: fragments[0].physical_schema)  # the first footer: the report reads it too
    return ds.FileSystemDataset(fragments, schema, fmt, root.arrow_fs)


def fetch_all(paths: list[ObjectPath], threads: int = 16) -> list[bytes]:
    """The bytes of every object in ``paths`` (in order), fetched ``threads`` at a time.

    For readers that need whole files anyway (the report, exports): one GET per file, many in
    flight, instead of a footer read and then column reads one file after another.
    """
    from concurrent.futures import ThreadPoolExecutor

    if not paths:
        return []
    with ThreadPoolExecutor(min(threads, len(paths))) as pool:
        return list(pool.map(lambda p: p.read_bytes(), paths))


def read_parquet_files(paths: list[Location], columns: list[str] | None = None) -> list[pa.Table]:
    """Each Parquet file of ``paths`` as a table (only ``columns``); object files fetched in parallel."""
    if paths and all(isinstance(p, ObjectPath) for p in paths):
        blobs = fetch_all([p for p in paths if isinstance(p, ObjectPath)])
        return [pq.read_table(pa.BufferReader(b), columns=columns) for b in blobs]
    return [pq.read_table(p, columns=columns) if isinstance(p, Path) else
            pq.read_table(pa.BufferReader(p.read_bytes()), columns=columns) for p in paths]


def parquet_rows(path: Location) -> int:
    """Rows of one Parquet file (its footer only)."""
    if isinstance(path, ObjectPath):
        def rows() -> int:
            with path.root.arrow_fs.open_input_file(path.root.arrow_path(path.key)) as fh:
                return int(pq.ParquetFile(fh).metadata.num_rows)

        return path.root._patiently(rows)
    return int(pq.ParquetFile(path).metadata.num_rows)


def parquet_metadata(path: Location) -> dict[bytes, bytes]:
    """The schema metadata of one Parquet file (its footer only); empty when it has none."""
    if isinstance(path, ObjectPath):
        def meta() -> dict[bytes, bytes]:
            with path.root.arrow_fs.open_input_file(path.root.arrow_path(path.key)) as fh:
                return dict(pq.read_schema(fh).metadata or {})

        return path.root._patiently(meta)
    return dict(pq.read_schema(path).metadata or {})


def read_stream(path: Location, chunk: int = _STREAM_CHUNK) -> Iterator[bytes]:
    """The bytes of ``path`` in chunks, as they are read (downloads never hold a file whole)."""
    if isinstance(path, ObjectPath):
        yield from path.stream(chunk)
        return
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            yield block
