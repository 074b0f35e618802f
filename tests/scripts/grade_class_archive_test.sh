#!/usr/bin/env bash
# grade_class_archive_test.sh SRC PYTHON - uploads as LMS exports give them,
# with the stand-in grader (only the class tool's own handling is under test):
# a Moodle folder holding a .zip, a flat .tar.gz, Canvas's flat names
# (lastnamefirstname[_LATE]_USERID_ATTACHMENTID_file: one file, LATE, a
# student with a kernel and its header, a student's .zip), and hostile
# archives, each refused whole with its reason and nothing written outside
# its folder: '..' and absolute members, a symlink, a hardlink and a device
# in a tar, a zip bomb (a source member inflating to 2 MiB; members adding up
# to 80 MiB), a zip whose directory understates a member's size, 1001
# members, a tar member that states 10 GiB with no bytes behind it.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stand=$src/tests/fixtures/classroom/stand_in_grader.py
mkdir "$tmp/c"
"$py" - "$tmp/c" "$src/tests/fixtures/kernels_grade/tree.cl" <<'PY' || { echo "FAIL: fixtures"; exit 1; }
import io, os, struct, sys, tarfile, zipfile
c, tree = sys.argv[1], open(sys.argv[2], "rb").read()
k = tree.replace(b"tree_reduce", b"my_reduce")

def zipped(path, members, mode=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", mode) as z:
        for name, data in members:
            z.writestr(name, data)

def tarred(path, members):
    with tarfile.open(path, "w:gz") as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)

def ti(name, data=b"", kind=tarfile.REGTYPE, link=""):
    i = tarfile.TarInfo(name)
    i.type, i.linkname, i.size = kind, link, len(data) if kind == tarfile.REGTYPE else 0
    return i, data if kind == tarfile.REGTYPE else None

os.makedirs(f"{c}/Ann Lee_2001_assignsubmission_file_")
zipped(f"{c}/Ann Lee_2001_assignsubmission_file_/lab3.zip",
       [("lab3/reduce.cl", k), ("lab3/notes.h", b"// helpers\n"), ("report.pdf", b"%PDF" * 1000),
        ("__MACOSX/lab3/._reduce.cl", b"\0\5\26\7 Mac OS X resource fork")])
tarred(f"{c}/bob.tar.gz", [ti("bob/kernel.cl", k)])
zipped(f"{c}/dots.zip", [("../../escaped.cl", k)])
zipped(f"{c}/absolute.zip", [(os.path.join(c, "..", "abs.cl"), k)])
tarred(f"{c}/symlink.tar.gz", [ti("k.cl", k), ti("link.cl", kind=tarfile.SYMTYPE, link="/etc/passwd")])
tarred(f"{c}/hardlink.tar.gz", [ti("k.cl", k), ti("hard.cl", kind=tarfile.LNKTYPE, link="k.cl")])
tarred(f"{c}/device.tar.gz", [ti("k.cl", k), ti("dev.cl", kind=tarfile.CHRTYPE)])
zipped(f"{c}/bomb_member.zip", [("k.cl", k + b" " * (2 << 20))])
zipped(f"{c}/bomb_total.zip", [("k.cl", k)] + [(f"pad{i}.bin", bytes(20 << 20)) for i in range(4)])
zipped(f"{c}/many.zip", [(f"f{i}.txt", b"x") for i in range(1001)])
zipped(f"{c}/forged.zip", [("k.cl", k + b" " * 100000)], zipfile.ZIP_STORED)
b = bytearray(open(f"{c}/forged.zip", "rb").read())  # state 100 bytes, hold 100 kB
for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
    at = b.index(sig)
    b[at + off:at + off + 4] = struct.pack("<I", 100)
open(f"{c}/forged.zip", "wb").write(bytes(b))
huge = tarfile.TarInfo("huge.cl")
huge.size = 10 << 30
open(f"{c}/huge.tar", "wb").write(huge.tobuf() + bytes(512))
import gzip
open(f"{c}/huge.tar.gz", "wb").write(gzip.compress(open(f"{c}/huge.tar", "rb").read()))
os.unlink(f"{c}/huge.tar")
# Canvas's flat download
open(f"{c}/leeann_1234_5678_reduce.cl", "wb").write(k)
open(f"{c}/kimbo_LATE_2222_3333_reduce.cl", "wb").write(k)
open(f"{c}/parkjin_4444_5555_main.cl", "wb").write(b'#include "helpers.h"\n' + k)
open(f"{c}/parkjin_4444_5556_helpers.h", "wb").write(b"// helpers\n")
zipped(f"{c}/choisu_6666_7777_lab.zip", [("src/reduce.cl", k)])
PY
printf 'speed_runs = 0\n' > "$tmp/settings"
OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o" --settings "$tmp/settings" \
  2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: exit $?"; exit 1; }
cat "$tmp/o/gradebook.csv"
"$py" - "$tmp" <<'PY' || exit 1
import csv, glob, json, os, sys
tmp = sys.argv[1]
out = f"{tmp}/o"
rows = list(csv.reader(open(f"{out}/gradebook.csv", newline="", encoding="utf-8")))
by = {r[1]: dict(zip(rows[0], r)) for r in rows[1:]}
assert len(by) == len(rows) - 1, "two rows for one student"
graded = {"Ann Lee": "2001", "bob": "bob", "leeann": "1234", "kimbo": "2222", "parkjin": "4444",
          "choisu": "6666"}
for name, sid in graded.items():
    assert by[name]["verdict"] == "PASS" and by[name]["id"] == sid, by[name]
refused = {"dots": "climbs out", "absolute": "absolute path", "symlink": "is a link",
           "hardlink": "is a link", "device": "device, FIFO or socket",
           "bomb_member": "more than 1024 KiB for a source file (a zip bomb?)",
           "bomb_total": "unpack to 80 MiB, more than 64 MiB (a zip bomb?)",
           "many": "1001 members, more than 1000", "forged": "", "huge": "more than 64 MiB"}
for name, why in refused.items():
    r = by[name]
    assert r["verdict"] == "NO_SUBMISSION" and why in r["reason"] and "refused" in r["reason"], r
    assert not os.path.exists(f"{out}/graded/{name}"), f"{name}: a refused archive left files"
assert not glob.glob(f"{tmp}/**/escaped.cl", recursive=True) and not os.path.exists(f"{tmp}/abs.cl")
assert by["kimbo"]["late"] == "yes" and by["leeann"]["late"] == "no", (by["kimbo"], by["leeann"])
assert not any("LATE" in n or n[-1:].isdigit() for n in by), sorted(by)
run = {s["student"]: s for s in json.load(open(f"{out}/run.json"))["submissions"]}
assert run["Ann Lee"]["file"].endswith("graded/Ann_Lee/lab3/reduce.cl"), run["Ann Lee"]
assert os.path.exists(f"{out}/graded/Ann_Lee/lab3/notes.h")
assert not os.path.exists(f"{out}/graded/Ann_Lee/report.pdf"), "only source files are unpacked"
assert not os.path.exists(f"{out}/graded/Ann_Lee/__MACOSX"), "macOS resource forks unpacked"
assert sorted(os.listdir(f"{out}/graded/parkjin")) == ["helpers.h", "main.cl"]
assert run["parkjin"]["file"].endswith("graded/parkjin/main.cl")
assert run["choisu"]["file"].endswith("graded/choisu/src/reduce.cl")
print("ok: archives unpacked and graded, hostile ones refused whole, Canvas names read")
PY
