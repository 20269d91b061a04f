#!/usr/bin/env python3
"""Re-reads dev incidents as real pastes wrap them (tests/incidents/README.md).

Each incident of a fixed sample of the dev part is diagnosed as collected and again with every line
of every log wrapped the way a launcher, a viewer or a web page wraps pasted text (srun -l's task id,
docker compose's column, a reply's quote markers, a CI log's stamp, colour codes, typographic
quotes, an indent, cat -n's and grep's line numbers). A family the plain copy gets right must survive
each wrapping, apart from the losses recorded in levels.toml ([wrapped] family_lost), which may only
fall.

  wrapped.py ATTRIBUTION            print the losses; fail above the recorded level
  wrapped.py ATTRIBUTION --all      the whole dev part (slower), for finding classes
"""
import concurrent.futures
import datetime
import hashlib
import html
import os
import re
import shutil
import sys
import tempfile
import tomllib

import score

WRAPS = {
    # each wraps line number i of a file whose own first time is `start`
    "srun -l": lambda line, i, start: "3: " + line,
    "docker compose": lambda line, i, start: "trainer-1  | " + line,
    "quoted reply": lambda line, i, start: "> " + line,
    "CI stamp": lambda line, i, start: ci_stamp(start, i) + line,
    "colour codes": lambda line, i, start: "\x1b[31m" + line + "\x1b[0m",
    "typographic quotes": lambda line, i, start: line.replace("'", "\u2019"),
    "HTML entities": lambda line, i, start: html.escape(line),
    "indent": lambda line, i, start: "    " + line,
    "cat -n": lambda line, i, start: "%6d\t" % (i + 1) + line,
    "grep -n": lambda line, i, start: "%d:" % (i + 1) + line,
    "grep over files": lambda line, i, start: "logs/train.log:%d:" % (i + 1) + line,
}
NO_STAMP = datetime.datetime(2024, 5, 1, 12, 0, 0)  # where a CI runner's stamps start for a log with no date
STAMP = re.compile(r"\b(20\d\d)-([01]\d)-([0-3]\d)(?:[T ]([0-2]\d):([0-5]\d):([0-5]\d))?")


def first_stamp(text):
    """Where a CI runner's stamps would start: the log's own first date and time (a runner stamps each
    line as it is printed, so its stamps agree with the log's), or a fixed moment for a log with none."""
    m = STAMP.search(text)
    if not m:
        return NO_STAMP
    try:  # a date without a clock starts at noon
        return datetime.datetime(*(int(g) if g else noon for g, noon in zip(m.groups(), (0, 0, 0, 12, 0, 0))))
    except ValueError:
        return NO_STAMP


def ci_stamp(start, i):
    """A CI runner's stamp (7 fractional digits, as GitHub Actions prints it), 10 ms a line from start."""
    t = start + datetime.timedelta(milliseconds=10 * i)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%07dZ " % (t.microsecond * 10)


EVERY = 12            # about one dev incident in EVERY, chosen by a hash of its slug and SEED (12: half the
                      # sample of 6, a subset of it, when the corpus passed 1,400 and the suite 20 minutes)
SEED = 20261204


def in_sample(slug):
    """Whether a dev incident is wrapped: decided by its own slug, so an incident added to the corpus
    never moves another in or out of the sample (a random draw over the list re-draws on every addition)."""
    return int(hashlib.sha256(f"{SEED}:{slug}".encode()).hexdigest(), 16) % EVERY == 0


def read_logs(slug):
    """An incident's log files, each read once: (path under logs/, text or None for a file that is not
    UTF-8, which every wrapping keeps as collected)."""
    base = os.path.join(score.HERE, slug, "logs")
    files = []
    for root, _, names in os.walk(base):
        for f in sorted(names):
            path = os.path.join(root, f)
            try:
                with open(path, encoding="utf-8") as fh:
                    files.append((os.path.relpath(path, base), fh.read()))
            except (UnicodeDecodeError, OSError):
                files.append((os.path.relpath(path, base), None))
    return base, files


def write_wrapped(base, files, wrap, dst):
    for rel, content in files:
        path = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if content is None:
            shutil.copyfile(os.path.join(base, rel), path)
            continue
        start = first_stamp(content)
        lines = content.split("\n")
        end = lines[-1] == ""
        text = lines[:-1] if end else lines
        body = [WRAPS[wrap](l, i, start) for i, l in enumerate(text)]
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write("\n".join(body) + ("\n" if end else ""))


def judge(binary, slug, meta):
    """The incident's family under each wrapping, its logs read once for all of them."""
    base, files = read_logs(slug)
    out = []
    for wrap in WRAPS:
        work = tempfile.mkdtemp(prefix="wrapped-")
        try:
            logs = os.path.join(work, "logs")
            write_wrapped(base, files, wrap, logs)
            out.append((slug, wrap, score.family_of(binary, logs, meta)))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    dev = [(s, m) for s, part, m in score.incidents() if part == "dev"]
    if "--all" not in sys.argv:
        dev = [(s, m) for s, m in dev if in_sample(s)]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        plain = dict(ex.map(lambda sm: (sm[0], score.family_of(binary, os.path.join(score.HERE, sm[0], "logs"), sm[1])), dev))
        right = [(s, m) for s, m in dev if plain[s] == m["truth"]["family"]]
        results = [r for rs in ex.map(lambda sm: judge(binary, *sm), right) for r in rs]
    lost = [(s, w, got) for s, w, got in results if got != plain[s]]
    for wrap in WRAPS:
        mine = [(s, got) for s, w, got in lost if w == wrap]
        print(f"{wrap}: {len(mine)} of {len(right)} family hits lost")
        for s, got in mine:
            print(f"    {s}: {plain[s]} -> {got}")
    with open(os.path.join(score.HERE, "levels.toml"), "rb") as f:
        allowed = tomllib.load(f)["wrapped"]["family_lost"]
    if "--all" not in sys.argv and len(lost) > allowed:
        sys.exit(f"{len(lost)} family hits lost to wrapping, more than the {allowed} recorded in levels.toml [wrapped]")
    print(f"{len(lost)} lost in all (recorded level {allowed})")


if __name__ == "__main__":
    main()
