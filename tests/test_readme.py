"""The README's two commands stay what CI runs, and its Python examples run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_opens_with_the_two_commands_and_ci_runs_the_test_command():
    blocks = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.S)
    assert [lang for lang, _ in blocks[:2]] == ["bash", "bash"]
    setup_demo, setup_test = (body.strip() for _, body in blocks[:2])
    assert "rummy demo" in setup_demo and "pytest" in setup_test
    first_text = README[: README.index("```")]
    assert first_text.count("\n") < 5, "the commands must open the README"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert setup_test in ci


def test_readme_python_examples_run(capsys):
    for _, body in re.findall(r"```(python)\n(.*?)```", README, flags=re.S):
        exec(compile(body, "README.md", "exec"), {})
    assert "[[15  7]]" in capsys.readouterr().out
