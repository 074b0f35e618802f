"""grade_class_archive.py - a student's .zip or .tar.gz upload unpacked for
grading (docs/labs/grading.md, "Archives"). Only what the compiler could
read is written (.cl and header files); everything else is counted and left
packed. An archive is refused whole, before anything is written, when a
member's name is absolute, climbs out with '..', or names a drive; when a
member is a link, a device or a FIFO, or encrypted; when it holds more than
MAX_MEMBERS members, or its members add up to more than MAX_TOTAL bytes, or
one source file is over MAX_MEMBER bytes (a zip bomb: its sizes are in its
directory, read before any byte is inflated). macOS's __MACOSX/ and ._ files are left
packed. While a file is written its
bytes are counted, so an archive whose directory lies is stopped at the
limit, never unpacked beyond it."""
import os
import re
import shutil
import stat
import tarfile
import zipfile

ARCHIVES = (".zip", ".tar.gz", ".tgz")
SOURCES = (".cl", ".h", ".clh")  # what a kernel's build can read
MAX_ARCHIVE = 64 << 20  # the archive file itself
MAX_MEMBERS = 1000
MAX_TOTAL = 64 << 20  # every member, unpacked or not
MAX_MEMBER = 1 << 20  # one source file (as a kernel file: SOURCE_CAP)
MAX_FILES = 200  # source files written
CHUNK = 64 << 10


class Refused(Exception):
    """An archive that is not unpacked: the message says why."""


def is_archive(name):
    return name.lower().endswith(ARCHIVES)


def member_parts(name):
    """The path components of a member name, or Refused when the name would
    leave the folder it is unpacked into (absolute, '..', a drive)."""
    if "\0" in name or re.match(r"^([A-Za-z]:|[\\/])", name):
        raise Refused(f"member '{name}' has an absolute path")
    parts = [p for p in re.split(r"[\\/]+", name) if p not in ("", ".")]
    if ".." in parts:
        raise Refused(f"member '{name}' climbs out of the archive with '..'")
    if any(re.search(r"[\n\r]", p) for p in parts):
        raise Refused(f"member {name!r} has a line break in its name")
    return parts


def checked(entries):
    """ENTRIES [(name, size, kind, encrypted, member)] (kind: 'file', 'dir'
    or what else it is) checked against every rule; the files to write,
    [(parts, size, member)]."""
    if len(entries) > MAX_MEMBERS:
        raise Refused(f"{len(entries)} members, more than {MAX_MEMBERS}")
    total = sum(e[1] for e in entries)
    if total > MAX_TOTAL:
        raise Refused(f"its members unpack to {total >> 20} MiB, more than {MAX_TOTAL >> 20} MiB "
                      "(a zip bomb?): not unpacked")
    files = []
    for name, size, kind, encrypted, member in entries:
        parts = member_parts(name)
        if kind not in ("file", "dir"):
            raise Refused(f"member '{name}' is a {kind}: an upload holds plain files only")
        if encrypted:
            raise Refused(f"member '{name}' is encrypted")
        if "__MACOSX" in parts or (parts and parts[-1].startswith("._")):
            continue  # macOS's resource forks beside each file: not the student's code
        if kind == "file" and parts and parts[-1].lower().endswith(SOURCES):
            if size > MAX_MEMBER:
                raise Refused(f"member '{name}' unpacks to {size >> 10} KiB, more than "
                              f"{MAX_MEMBER >> 10} KiB for a source file (a zip bomb?): "
                              "not unpacked")
            files.append((parts, size, member))
    if len(files) > MAX_FILES:
        raise Refused(f"{len(files)} source files, more than {MAX_FILES}")
    return files


def zip_entries(z):
    out = []
    for i in z.infolist():
        mode = (i.external_attr >> 16) & 0o170000 if i.create_system == 3 else 0
        if mode in (0, stat.S_IFREG, stat.S_IFDIR):
            kind = "dir" if i.is_dir() or mode == stat.S_IFDIR else "file"
        else:
            kind = "link" if mode == stat.S_IFLNK else "device, FIFO or socket"
        out.append((i.filename, i.file_size, kind, bool(i.flag_bits & 1), i))
    return out


def tar_kind(m):
    if m.isreg():
        return "file"
    if m.isdir():
        return "dir"
    return "link" if m.issym() or m.islnk() else "device, FIFO or socket"


def tar_entries(t):
    """The members of the open tar T, read header by header: the count and
    the sizes are checked as they come, so a member that states 10 GB stops
    the reading at its header, before its bytes are inflated."""
    out, total = [], 0
    while True:
        m = t.next()
        if m is None:
            return out
        total += m.size
        if len(out) >= MAX_MEMBERS or total > MAX_TOTAL:
            checked(out + [(m.name, m.size, tar_kind(m), False, m)])  # raises, saying which
        out.append((m.name, m.size, tar_kind(m), False, m))


def write(src, dest, parts, size):
    """Copy the open member SRC to DEST/PARTS, at most SIZE bytes (the size
    its directory gave: a member that lies about it is refused)."""
    path = os.path.join(dest, *parts)
    if not os.path.realpath(path).startswith(os.path.realpath(dest) + os.sep):
        raise Refused(f"member '{'/'.join(parts)}' leaves the folder")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    got = 0
    with open(path, "xb") as f:
        while True:
            chunk = src.read(min(CHUNK, size + 1 - got))
            if not chunk:
                break
            got += len(chunk)
            if got > size:
                raise Refused(f"member '{'/'.join(parts)}' unpacks to more than its stated "
                              f"{size} bytes (a forged zip bomb?): stopped")
            f.write(chunk)


def unpack(archive, dest):
    """Unpack ARCHIVE's source files into DEST (a new, empty folder); the
    number of members left packed (not source files). Refused, with DEST
    perhaps partly written, when a rule is broken."""
    if os.path.getsize(archive) > MAX_ARCHIVE:
        raise Refused(f"the archive is larger than {MAX_ARCHIVE >> 20} MiB")
    os.makedirs(dest, exist_ok=True)
    try:
        return unpack_into(archive, dest)
    except Refused:
        shutil.rmtree(dest, ignore_errors=True)  # nothing half unpacked is graded
        raise


def unpack_into(archive, dest):
    try:
        if archive.lower().endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                entries = zip_entries(z)
                files = checked(entries)
                for parts, size, info in files:
                    with z.open(info) as src:
                        write(src, dest, parts, size)
        else:
            with tarfile.open(archive, "r:gz") as t:
                entries = tar_entries(t)
                files = checked(entries)
                for parts, size, m in files:
                    write(t.extractfile(m), dest, parts, size)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError,
            NotImplementedError) as e:
        kind = "a zip" if archive.lower().endswith(".zip") else "a tar.gz"
        raise Refused(f"cannot be read as {kind} archive ({e})")
    return sum(e[2] == "file" for e in entries) - len(files)
