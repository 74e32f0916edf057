"""A throw-away PostgreSQL cluster for tests: initdb + pg_ctl on a free loopback port."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bot.store import Store, open_store
from bot.store.factory import SQLITE_FILE

REQUIRE_ENV = "REQUIRE_POSTGRES"  # CI sets it to 1: missing binaries fail instead of skip
UNPRIVILEGED_USER = "nobody"  # PostgreSQL refuses to run as root


def find_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb, else pg_ctl's on PATH."""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parent.parent.name or 0),
    )
    if candidates:
        return Path(candidates[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PgCluster:
    """One cluster in a temp dir, owned by an unprivileged user when we are root."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="pgtest-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            account = pwd.getpwnam(UNPRIVILEGED_USER)
            os.chown(self.root, account.pw_uid, account.pw_gid)
            self._as_user = [
                "setpriv",
                f"--reuid={account.pw_uid}",
                f"--regid={account.pw_gid}",
                "--clear-groups",
                "--",
            ]

    def _run(self, tool: str, *args: str) -> None:
        """Run a PostgreSQL tool as the cluster's owner; raise with its output on failure."""
        command = [*self._as_user, str(self.bin_dir / tool), *args]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.root, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stdout}{done.stderr}")

    def init(self) -> None:
        """Create the cluster: trust auth on loopback only, no fsync (throw-away data)."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--no-sync", "--locale=C")  # fmt: skip

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c full_page_writes=off"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", options, "-w", "-t", "30", "start")  # fmt: skip

    def stop(self) -> None:
        """Stop the server at once (connections are cut, like a crash or a failover)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def url(self, dbname: str = "postgres") -> str:
        """A postgresql:// URL for `dbname` on this cluster."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, name: str) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def create_schema(self, name: str) -> str:
        """Create an empty schema and return a URL whose connections use only it."""
        import psycopg

        # A schema is milliseconds where CREATE DATABASE checkpoints (~0.5 s per test).
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE SCHEMA "{name}"')
        return f"{self.url()}?options=-csearch_path%3D{name}"

    def remove(self) -> None:
        """Stop the server if running and delete the cluster's files."""
        with contextlib.suppress(RuntimeError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass(frozen=True)
class Backend:
    """Where a test's stores live: open as many (replicas) as it likes."""

    name: str
    database_url: str | None
    data_dir: Path
    cluster: PgCluster | None = None

    async def open(self, **options: object) -> Store:
        """A new Store on this backend (a new pool or thread: a separate replica)."""
        return await open_store(self.database_url, self.data_dir, **options)  # type: ignore[arg-type]

    def execute(self, sql: str) -> None:
        """Run raw SQL outside the store (to set up states the API cannot reach)."""
        if self.database_url is None:
            with sqlite3.connect(self.data_dir / SQLITE_FILE) as connection:
                connection.execute(sql)
            return
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as connection:
            connection.execute(sql)

    def migrate_to(self, version: int) -> None:
        """The schema as a bot of that version left it: migrations up to `version` applied
        and recorded, as the store would have, on an empty database."""
        from bot.store._queries import load_migrations

        self.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY)")
        for migration in load_migrations(self.name):
            if migration.version > version:
                continue
            for statement in migration.statements:
                self.execute(statement)
            self.execute(f"INSERT INTO schema_version (version) VALUES ({migration.version})")
