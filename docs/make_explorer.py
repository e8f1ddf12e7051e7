#!/usr/bin/env python3
"""make_explorer.py MHA_EXPLAIN OUT.html: the ready page `meson install`
puts in share/doc/mha-explain (docs/meson.build): the classroom example's
live --html page, in English, for a teacher who opens it from the file
manager and edits the sentence there. The program's text output is not
kept."""
import os
import subprocess
import sys


def main():
    mha, out = sys.argv[1], sys.argv[2]
    env = dict(os.environ, LANGUAGE="", LC_ALL="C.UTF-8")
    subprocess.run([mha, "O gato sobe no tapete", "--heads", "2",
                    "--html", out], check=True, env=env,
                   stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
