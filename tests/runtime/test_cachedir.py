"""``cachedir``'s memos and its sealed files' format: the answers memoized for the launch path
follow the environment, a MAC is keyed BLAKE2b over the name, a NUL and the bytes (the format
every cache file in use was written in), and a file is read whole."""

from __future__ import annotations

import hashlib
import os

from kernellab import cachedir


def test_root_follows_the_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "a"))
    assert cachedir.root() == tmp_path / "a" and cachedir.root() is cachedir.root()
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path / "b"))
    assert cachedir.root() == tmp_path / "b" and (tmp_path / "b").is_dir()
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    assert cachedir.root() is None
    monkeypatch.delenv("KERNELLAB_CACHE")
    assert cachedir.root() == tmp_path / "b"


def test_a_mac_is_keyed_blake2b_of_the_name_and_the_bytes():
    data = os.urandom(5000)
    expected = hashlib.blake2b(b"code/x.marshal\0" + data, key=cachedir.key(), digest_size=32,
                               person=b"kernellab-cache").hexdigest()
    assert cachedir.mac("code/x.marshal", data) == expected
    assert cachedir.seal("code/x.marshal", data) == expected.encode() + b"\n" + data
    assert cachedir.mac("code/y.marshal", data) != expected


def test_a_sealed_json_file_is_checked_over_its_bytes_with_zeros_for_its_mac():
    sealed = cachedir.seal_json("k/metadata.json", {"format": 1, "text": "ü"})
    zeroed = sealed[:11] + b"0" * 64 + sealed[75:]
    assert sealed[11:75].decode() == cachedir.mac("k/metadata.json", zeroed)
    assert cachedir.unseal_json("k/metadata.json", sealed) == {"format": 1, "text": "ü"}
    assert cachedir.unseal_json("j/metadata.json", sealed) is None


def test_the_key_is_the_one_in_the_private_folder():
    holder = cachedir.private_folder()
    if holder is None:
        return  # a key of this process's own
    with open(holder / cachedir.KEY_FOLDER / cachedir.KEY_FILE, "rb") as file:
        assert file.read() == cachedir.key()


def test_a_file_is_read_whole(tmp_path):
    for size in (0, 1, 4095, 4096, 70000):
        path = tmp_path / f"f{size}"
        data = os.urandom(size)
        path.write_bytes(data)
        assert cachedir.read_file(path) == data
    assert cachedir.read_file(tmp_path) is None and cachedir.read_file(tmp_path / "absent") is None
    os.mkfifo(tmp_path / "fifo")
    assert cachedir.read_file(tmp_path / "fifo") is None


def test_a_file_that_grew_after_its_size_was_read_is_read_to_its_end(tmp_path, monkeypatch):
    path = tmp_path / "growing"
    data = os.urandom(200000)
    path.write_bytes(data)
    real = os.fstat

    class Smaller:
        def __init__(self, info):
            self.st_mode, self.st_size = info.st_mode, 10

    monkeypatch.setattr(os, "fstat", lambda fd: Smaller(real(fd)))
    assert cachedir.read_file(path) == data
