"""mlxplain.data downloads: a local http.server on 127.0.0.1 stands in for the mirror/upstream.

Checks: a download into an empty cache succeeds with a verified checksum; a damaged or truncated
file fails its checksum and leaves nothing in the cache; a 404 and an unreachable server give clear
errors; a data set without a direct URL says where to put the files.
"""
import functools
import gzip
import hashlib
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mlxplain import data as D
from mlxplain.data import DownloadError, fetch, load

FILE = "multilabel/emotions-train.arff.gz"


class _Quiet(SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        _Quiet.requests.append(self.path)
        return super().do_GET()


@pytest.fixture
def serve():
    "serve(directory) -> base URL of a ThreadingHTTPServer on 127.0.0.1 (random port) for `directory`."
    servers = []

    def start(directory, handler=None):
        srv = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler or _Quiet, directory=str(directory)))
        threading.Thread(target=srv.serve_forever, kwargs=dict(poll_interval=0.05), daemon=True).start()
        servers.append(srv)
        return f"http://127.0.0.1:{srv.server_address[1]}"

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    "An empty user cache; no $MLXPLAIN_DATA and no mirror from the environment."
    c = tmp_path / "cache"
    monkeypatch.setenv("MLXPLAIN_CACHE", str(c))
    monkeypatch.delenv("MLXPLAIN_DATA", raising=False)
    monkeypatch.delenv("MLXPLAIN_MIRROR", raising=False)
    return c


def _files(d):
    return sorted(p.relative_to(d).as_posix() for p in Path(d).rglob("*") if p.is_file()) if Path(d).exists() else []


def _sha(p):
    return hashlib.sha256(Path(p).read_bytes()).hexdigest()


def test_cache_dir_lookup(monkeypatch, tmp_path):
    monkeypatch.delenv("MLXPLAIN_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert D.cache_dir() == tmp_path / "mlxplain"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert D.cache_dir() == Path.home() / ".cache" / "mlxplain"


def test_mirror_download_verified(data_home, cache, serve, monkeypatch):
    url = serve(data_home)
    monkeypatch.setenv("MLXPLAIN_MIRROR", url)
    _Quiet.requests.clear()
    ds = load("emotions", "train")
    assert ds.shape == (391, 72, 6) and ds.provenance["verified"]
    assert _files(cache) == [FILE]
    assert _sha(cache / FILE) == _sha(data_home / FILE)
    assert _Quiet.requests == ["/" + FILE]
    load("emotions", "train")                      # second time from the cache: no request
    assert _Quiet.requests == ["/" + FILE]


def test_mirror_argument_and_file_url(data_home, cache):
    paths = fetch("flags", mirror=data_home.as_uri())  # file:// works as a mirror too
    assert set(paths) == {"train", "test", "union"}
    assert all(p.parent == cache / "multilabel" for p in paths.values())
    assert load("flags").shape == (194, 19, 7)


def test_data_home_and_env_come_before_cache(data_home, cache, monkeypatch):
    monkeypatch.setenv("MLXPLAIN_MIRROR", "http://127.0.0.1:9")   # never contacted
    assert fetch("sonar", data_home=data_home)["union"] == data_home / "pmlb/sonar.tsv.gz"
    monkeypatch.setenv("MLXPLAIN_DATA", str(data_home))
    assert fetch("sonar")["union"] == data_home / "pmlb/sonar.tsv.gz"
    assert _files(cache) == []


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_damaged_download_leaves_nothing(data_home, cache, serve, tmp_path, damage):
    mirror = tmp_path / "mirror"
    (mirror / "multilabel").mkdir(parents=True)
    raw = (data_home / FILE).read_bytes()
    raw = raw[: len(raw) // 2] if damage == "truncate" else raw[:100] + bytes([raw[100] ^ 1]) + raw[101:]
    (mirror / FILE).write_bytes(raw)
    with pytest.raises(DownloadError, match="checksum mismatch") as e:
        load("emotions", "train", mirror=serve(mirror))
    msg = str(e.value)
    assert "emotions" in msg and "/" + FILE in msg and "MLXPLAIN_DATA" in msg
    assert _files(cache) == []          # no partial or temporary file left behind


class _Drop(_Quiet):
    "Announces the full length, sends half of the file, then closes the connection."
    def do_GET(self):
        raw = Path(self.directory, self.path.lstrip("/")).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw[: len(raw) // 2])
        self.wfile.flush()
        self.close_connection = True


def test_connection_dropped_mid_transfer(data_home, cache, serve):
    with pytest.raises(DownloadError, match="incomplete download of data set 'emotions'") as e:
        load("emotions", "train", mirror=serve(data_home, _Drop))
    assert "MLXPLAIN_DATA" in str(e.value)
    assert _files(cache) == []


def test_404_is_clear(cache, serve, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DownloadError, match="404") as e:
        load("emotions", "test", mirror=serve(tmp_path / "empty"))
    assert "'emotions'" in str(e.value) and "emotions-test.arff.gz" in str(e.value)
    assert _files(cache) == []


def test_unreachable_is_clear(cache):
    with pytest.raises(DownloadError) as e:
        load("yeast", "train", mirror="http://127.0.0.1:1")
    msg = str(e.value)
    assert "could not download" in msg and "'yeast'" in msg and "http://127.0.0.1:1/multilabel/yeast-train.arff.gz" in msg
    assert "MLXPLAIN_DATA" in msg and "download it manually to" in msg
    assert _files(cache) == []


def test_upstream_url_with_decompressed_checksum(data_home, cache, serve, tmp_path, monkeypatch):
    "Without a mirror, the upstream (uncompressed) file is fetched and checked against url_sha256."
    up = tmp_path / "upstream"
    up.mkdir()
    (up / "emotions-test.arff").write_bytes(gzip.decompress((data_home / "multilabel/emotions-test.arff.gz").read_bytes()))
    url = serve(up)
    reg = [dict(e) for e in D._REGISTRY]
    for e in reg:
        if e["file"] == "multilabel/emotions-test.arff.gz":
            e["url"] = url + "/emotions-test.arff"
    monkeypatch.setattr(D, "_REGISTRY", reg)
    ds = load("emotions", "test")
    assert ds.shape == (202, 72, 6) and ds.provenance["verified"]
    assert _files(cache) == ["multilabel/emotions-test.arff"]


def test_absent_without_direct_url(cache):
    with pytest.raises(FileNotFoundError, match="Extreme Classification Repository") as e:
        load("Eurlex-4K", "train")
    assert "xc/Eurlex-4K-train.txt.gz" in str(e.value) and "MLXPLAIN_DATA" in str(e.value)
    with pytest.raises(FileNotFoundError, match="no direct download"):
        load("imdb")
    with pytest.raises(FileNotFoundError, match="mediamill"):
        fetch("mediamill")
    assert _files(cache) == []


def test_local_copy_uncompressed_is_found(data_home, cache, tmp_path):
    home = tmp_path / "home"
    (home / "pmlb").mkdir(parents=True)
    shutil.copy(data_home / "pmlb/spect.tsv.gz", home / "pmlb/spect.tsv.gz")
    (home / "multilabel").mkdir()
    (home / "multilabel/flags-test.arff").write_bytes(gzip.decompress((data_home / "multilabel/flags-test.arff.gz").read_bytes()))
    assert load("spect", data_home=home).shape == (267, 22, 1)
    ds = load("flags", "test", data_home=home)
    assert ds.shape == (65, 19, 7) and ds.provenance["verified"]   # checked against the upstream checksum
