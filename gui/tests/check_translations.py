#!/usr/bin/env python3
"""Fail when a GUI translation (gui/translations/*.ts) is behind the sources or breaks a placeholder.

    check_translations.py --lupdate LUPDATE --ts FILE.ts --work DIR --include gui SOURCE_DIR...

Runs lupdate over the sources into a copy of FILE.ts in DIR (the file itself is never written), as docs/gui.md says
strings are added but keeping obsolete entries, then reads the copy back. It fails, naming each message, when:

- a message is unfinished: a string the sources have and the .ts lacks, or one never translated;
- a message is vanished or obsolete: the .ts still translates a string the sources no longer have;
- a translation drops, adds or changes a token that must pass through unchanged: a Qt placeholder (%1, %L1, %n),
  an HTML tag, a mnemonic (&F), a command-line flag (--view) or `code`;
- a plural message (%n) has other than the one form Chinese, Japanese or Korean use.

Exit 0 when the .ts is current and whole, 1 otherwise, 2 when lupdate cannot run.
"""
import argparse
import collections
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

# Tokens a translation keeps as they are (each kind counted as a multiset: order may change, count may not).
KEPT = {
    "placeholder": re.compile(r"%L?(?:\d+|n)"),
    "HTML tag": re.compile(r"</?[A-Za-z][^<>]*>"),
    "mnemonic": re.compile(r"&[A-Za-z]"),
    "flag": re.compile(r"--[a-z][a-z-]*"),
    "code": re.compile(r"`[^`]+`"),
}
# Languages with one plural form (Qt's numerus rules); others are not checked for their count of forms.
SINGLE_FORM_LANGUAGES = ("zh", "ja", "ko")
UPDATE_COMMAND = "lupdate -no-obsolete -locations none -I gui gui/models gui/widgets gui/app -ts gui/translations/{ts}"


def kept_tokens(text):
    """The multiset of tokens in text that a translation must keep."""
    found = collections.Counter()
    for kind, pattern in KEPT.items():
        found.update((kind, token) for token in pattern.findall(text or ""))
    return found


def describe(tokens):
    return ", ".join(f"{kind} {token!r}" + (f" x{n}" if n > 1 else "") for (kind, token), n in sorted(tokens.items()))


def message_problems(language, context, message):
    """What is wrong with one <message>: a list of lines, empty when nothing is."""
    source = message.findtext("source") or ""
    where = f"{context}: {source!r}"
    translation = message.find("translation")
    state = translation.get("type")
    if state == "unfinished":
        return [f"{where}: not translated (unfinished)"]
    if state in ("vanished", "obsolete"):
        return [f"{where}: the sources no longer have this string ({state})"]
    forms = [f.text or "" for f in translation.findall("numerusform")]
    problems = []
    if message.get("numerus") == "yes" and language.split("_")[0] in SINGLE_FORM_LANGUAGES and len(forms) != 1:
        problems.append(f"{where}: expected 1 plural form for {language}, got {len(forms)}")
    for text in forms or [translation.text or ""]:
        if not text.strip():
            problems.append(f"{where}: empty translation")
            continue
        want, got = kept_tokens(source), kept_tokens(text)
        if want != got:
            lost, added = want - got, got - want
            said = "; ".join(s for s in (lost and f"lost {describe(lost)}", added and f"added {describe(added)}") if s)
            problems.append(f"{where} -> {text!r}: {said}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lupdate", required=True, help="Qt's lupdate")
    parser.add_argument("--ts", required=True, type=pathlib.Path, help="the translation to check")
    parser.add_argument("--work", required=True, type=pathlib.Path, help="a folder for the updated copy")
    parser.add_argument("--include", action="append", default=[], help="include path for lupdate's C++ parser")
    parser.add_argument("sources", nargs="+", help="the folders lupdate scans")
    args = parser.parse_args()

    args.work.mkdir(parents=True, exist_ok=True)
    copy = args.work / args.ts.name
    shutil.copyfile(args.ts, copy)
    command = [args.lupdate, "-locations", "none"]
    for path in args.include:
        command += ["-I", path]
    command += args.sources + ["-ts", str(copy)]
    try:
        run = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        print(f"cannot run lupdate: {error}", file=sys.stderr)
        return 2
    if run.returncode != 0:
        print(f"lupdate failed ({run.returncode}):\n{run.stdout}{run.stderr}", file=sys.stderr)
        return 2

    root = ET.parse(copy).getroot()
    language = root.get("language", "")
    problems = []
    count = 0
    for context in root.iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            count += 1
            problems += message_problems(language, name, message)
    if problems:
        print(f"{args.ts}: {len(problems)} of {count} messages need work:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        print(f"Update it from the repository root with `{UPDATE_COMMAND.format(ts=args.ts.name)}`, translate every "
              "unfinished message (Qt Linguist or an editor), keep the tokens named above, rebuild.", file=sys.stderr)
        return 1
    print(f"{args.ts}: {count} messages, all translated, placeholders, tags, mnemonics, flags and code kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
