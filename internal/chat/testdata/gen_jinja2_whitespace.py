"""Generates jinja2_whitespace.json: random templates mixing text, tags,
comments, raw blocks and every whitespace-control sign, rendered by Python
Jinja2 with the settings Hugging Face's apply_chat_template uses
(trim_blocks, lstrip_blocks, loopcontrols). TestWhitespaceMatchesJinja2
renders the same templates with package chat and compares byte for byte.

Run from this directory: python3 gen_jinja2_whitespace.py
"""
import json
import random

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
rng = random.Random(7)
TEXTS = ["a", " ", "  ", "\n", "\n  ", "\t", "b\n", "\n\n", " \n ", "c  ", "\n\t", "\r\n", "x\r\ny"]


def sign(allow_plus=True):
    return rng.choice(["", "", "-", "+"] if allow_plus else ["", "", "-"])


def blk(body):
    return "{%" + sign() + " " + body + " " + sign() + "%}"


def seq(depth):
    out = []
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.4:
            out.append(rng.choice(TEXTS))
        elif r < 0.6:
            out.append("{{" + sign() + " x " + sign(False) + "}}")
        elif r < 0.67:
            out.append("{#" + sign() + rng.choice([" c ", "\n c \n"]) + sign() + "#}")
        elif r < 0.72:
            out.append(blk("raw") + rng.choice(["{{ y }}", "\n {% z %}\n", "  "]) + blk("endraw"))
        elif depth < 3 and r < 0.86:
            els = blk("else") + seq(depth + 1) if rng.random() < 0.3 else ""
            out.append(blk("if flag") + seq(depth + 1) + els + blk("endif"))
        elif depth < 3:
            out.append(blk("for i in items") + seq(depth + 1) + blk("endfor"))
        else:
            out.append(rng.choice(TEXTS))
    return "".join(out)


templates = []
for _ in range(250):
    t = seq(0)
    if rng.random() < 0.2:
        t += "\n"
    templates.append((t, rng.random() < 0.8))
# Hand-picked cases: string escapes, nested braces, tags next to tags.
for t in [
    "{{ 'a\\tb\\x41\\u00e9\\r\\101|\\d|\\\\' }}",
    '{{ "q\'\\"" }}',
    "{{ {'a': {'b': 1}} }}",
    "{% set d = {'k': {'n': 'v'}} %}{{ d.k.n }}",
    "{{ '}}' }}{{ \"%}\" }}{{ '{#' }}",
    "{% if flag %}{{ x }}\n{% endif %}",
    "{% for i in items %}{{ i }}\n{% endfor %}",
    "{% if flag %}{{ x }}\n\n{% endif %}",
    "a  {{ x }}{%- if flag %}b{% endif %}",
    "{{ x }}\n  {% if flag %}y{% endif %}",
    "Hello\n\n",
    "{{ -1 }}|{{- -1 -}}|",
    "line1\n{#- c -#}\n  line2",
]:
    templates.append((t, True))

cases = []
for t, flag in templates:
    case = {"template": t, "flag": flag}
    try:
        case["expected"] = env.from_string(t).render(x="X", items=["p", "q"], flag=flag)
    except jinja2.TemplateError as e:
        case["error"] = str(e)
    cases.append(case)

with open("jinja2_whitespace.json", "w") as f:
    # One case per line keeps diffs of regenerated files readable.
    f.write('{"jinja2_version": %s, "cases": [\n' % json.dumps(jinja2.__version__))
    f.write(",\n".join(json.dumps(c) for c in cases))
    f.write("\n]}\n")
