"""Relative links between pages: ``relative_url`` against the standard library's ``posixpath.relpath``."""

from __future__ import annotations

import itertools
import posixpath

from gpuguide.render.renderer import relative_url

URLS = ["/", "/fr/", "/en/", "/fr/entrainement-llm/", "/en/llm-training/", "/fr/gpu/h100-sxm/",
        "/fr/comparer/h100-sxm-vs-a100-80gb/", "/en/guides/choosing-gpus-deep-learning-llm/", "/404.html",
        "/assets/style.css", "/fr/gpu/", "/fr/gpu/#faq", "/en/llm-training/#what-matters", "/fr"]


def _relpath_url(from_url: str, to_url: str) -> str:
    """The definition: the path from the page's folder to the target, as posixpath computes it."""
    path, hash_, fragment = to_url.partition("#")
    target = posixpath.relpath(path, posixpath.dirname(from_url) or "/")
    if target == ".":
        target = "./"
    elif path.endswith("/"):
        target += "/"
    return target + hash_ + fragment


def test_relative_url_is_posixpath_relpath_between_site_urls() -> None:
    for from_url, to_url in itertools.product(URLS, repeat=2):
        assert relative_url(from_url, to_url) == _relpath_url(from_url, to_url), (from_url, to_url)


def test_relative_links_resolve_to_their_target() -> None:
    for from_url, to_url in itertools.product(URLS, repeat=2):
        base = posixpath.dirname(from_url).rstrip("/") + "/"  # the folder a browser resolves against
        resolved = posixpath.normpath(posixpath.join(base, relative_url(from_url, to_url).partition("#")[0]))
        assert resolved == posixpath.normpath(to_url.partition("#")[0]), (from_url, to_url)


# --- Compiled templates: code, so authenticated ------------------------------------------------

def _planted(env, name: str) -> bytes:
    """What an attacker who can write the build cache would plant for template ``name``: Jinja's
    own format, the real source's checksum (the source is public), and code of their own."""
    import jinja2

    source, filename, _ = env.loader.get_source(env, name)
    bucket = jinja2.bccache.Bucket(env, env.bytecode_cache.get_cache_key(name, filename),
                                   env.bytecode_cache.get_source_checksum(source))
    bucket.code = env.compile("PLANTED {{ 6 * 7 }}", name, filename)
    return bucket.bytecode_to_string()


def test_a_planted_compiled_template_is_never_loaded(tmp_path, monkeypatch):
    import hashlib
    import hmac

    from sites import build, tiny_project

    from gpuguide.render.environment import TAG_BYTES, make_environment

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    root = tiny_project(tmp_path / "tiny")
    build(root)
    compiled = root / ".build-cache" / "templates"
    env = make_environment(root / "templates", compiled)
    names = env.list_templates(extensions=["html"])
    files = {name: compiled / env.bytecode_cache._get_cache_filename(  # type: ignore[union-attr]
        jinja_bucket(env, name)).split("/")[-1] for name in names}
    assert all(path.is_file() for path in files.values())  # the build cached every template
    for index, (name, path) in enumerate(sorted(files.items())):
        planted, tag = _planted(env, name), path.read_bytes()[:TAG_BYTES]
        # Without a tag, with the genuine file's tag, or with a tag under another key.
        path.write_bytes([planted, tag + planted,
                          hmac.new(b"k" * 32, planted, hashlib.sha256).digest() + planted][index % 3])
    page = root / "content" / "fr" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nUne phrase de plus.\n", encoding="utf-8")
    (root / "data" / "ui" / "fr.yaml").touch()  # every page is rendered again
    build(root)
    for html in (root / "site").rglob("*.html"):
        assert "PLANTED" not in html.read_text(encoding="utf-8"), html


def jinja_bucket(env, name: str):
    import jinja2

    source, filename, _ = env.loader.get_source(env, name)
    return jinja2.bccache.Bucket(env, env.bytecode_cache.get_cache_key(name, filename),
                                 env.bytecode_cache.get_source_checksum(source))


def test_a_genuine_compiled_template_is_loaded(tmp_path, monkeypatch):
    """The cache still works: a second environment loads what the first compiled, without compiling."""
    from sites import ROOT

    from gpuguide.render.environment import make_environment

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    first = make_environment(ROOT / "templates", tmp_path / "compiled")
    first.get_template("guide.html")
    second = make_environment(ROOT / "templates", tmp_path / "compiled")
    compiled = []
    monkeypatch.setattr(second, "compile", lambda *args, **kwargs: compiled.append(args) or None)
    second.get_template("guide.html")
    assert compiled == []


def test_a_cold_compile_parses_each_template_once_and_compiles_the_code_a_fresh_parse_gives(tmp_path, monkeypatch):
    """Finding a template's references parses it; compiling it then uses that tree instead of
    parsing the source again (``SiteEnvironment``), and generates the very code a parse gives."""
    import jinja2

    from sites import ROOT

    from gpuguide.build.pipeline import Options, load
    from gpuguide.project import Project
    from gpuguide.render.renderer import PageRenderer

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    project = Project(ROOT)
    site = load(project, Options(search=False, parallel=False))
    parsed: list[str | None] = []
    parse = jinja2.Environment._parse

    def counted(self, source, name, filename):
        parsed.append(name)
        return parse(self, source, name, filename)

    monkeypatch.setattr(jinja2.Environment, "_parse", counted)
    renderer = PageRenderer(site.dataset, site.library, site.languages, project.templates_dir, site.problems,
                            cache_dir=tmp_path / "cache")
    renderer.compile_templates({"guide", "gpu", "comparison"})
    assert not site.problems.errors
    assert sorted(parsed) == sorted(renderer.template_sources) and len(parsed) == len(set(parsed)) > 5
    assert not renderer.env._trees  # nothing kept once compiled
    plain = jinja2.Environment(**{key: getattr(renderer.env, key) for key in (
        "trim_blocks", "lstrip_blocks", "keep_trailing_newline", "autoescape", "undefined")}, loader=renderer.env.loader)
    for name, source in renderer.template_sources.items():
        renderer.env.parse_to_compile(source, name)
        assert renderer.env.compile(source, name, name, raw=True) == plain.compile(source, name, name, raw=True), name


# --- JSON encoded once (``EncodedJson``) -------------------------------------------------------------

def test_a_value_encoded_once_is_written_by_tojson_as_the_value_itself(tmp_path):
    """A planner's program, encoded once and put in as text, gives the page the very bytes ``tojson``
    writes of the program itself; so does any value, HTML-unsafe characters and all."""
    from gpuguide.figures import planner_program
    from gpuguide.figures.serving import ModelShape
    from gpuguide.render.environment import EncodedJson, make_environment

    shape = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256, hidden_size=4096)
    program = planner_program.program(shape).as_json()
    awkward = {"</script>": ["<b>&'\"", "é\u2028", 1.5, None, True], "nested": {"z": 1, "a": [{}]}}
    template = make_environment(tmp_path).from_string("<script>{{ value|tojson }}</script>")
    for value in (program, awkward, [], "text", 3):
        plain = template.render(value={"program": value, "kind": "model", "list": [value, value]})
        once = EncodedJson.of(value)
        assert template.render(value={"program": once, "kind": "model", "list": [once, once]}) == plain
    assert "</script>" not in template.render(value=EncodedJson.of(awkward))[8:-9]
