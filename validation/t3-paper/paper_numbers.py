"""The T3 paper's numbers for a reproduction, read from the experiment file's "paper" block.

configs/experiments/<experiment>.json is the one place these numbers are written: the C++ report
(report.md) reads the same block. <experiment> is summary.json's "experiment" name; a custom
experiment without a file under configs/experiments/ falls back to t3-paper.json.
"""
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def experiment_file(name):
    path = os.path.join(ROOT, "configs", "experiments", f"{name}.json")
    if not os.path.isfile(path):
        path = os.path.join(ROOT, "configs", "experiments", "t3-paper.json")
    return path


def load_paper(name="t3-paper"):
    """The "paper" block of experiment `name` (a dict, as in the JSON file)."""
    with open(experiment_file(name), encoding="utf-8") as f:
        return json.load(f)["paper"]


def lookup(node, path):
    """node[path[0]][path[1]]... or None where a key is missing."""
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node
