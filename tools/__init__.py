"""The course's build tools: `python -m tools build` writes every generated file from course.toml and the
notebooks (tools/targets.py), `python -m tools check` lists what is stale. Run from the repository's root."""
