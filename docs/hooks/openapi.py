"""MkDocs hook: the OpenAPI reference of the HTTP service, made at build time from the
service's own schema (``create_app(...).openapi()``), so the page always matches the code.

A page that contains the line ``<!-- openapi-reference -->`` gets it replaced by a table of
the endpoints (method, path, summary, parameters, request body, responses) and one section
per schema model with a table of its fields. Building needs FastAPI and SQLAlchemy (the
``docs`` extra installs them); without them the build stops with one line naming the extra.
"""

from __future__ import annotations

MARKER = "<!-- openapi-reference -->"


def service_schema() -> dict:
    """The OpenAPI document of a service with heuristic bots and an in-memory database."""
    try:
        from canasta_env.bots.service import create_app

        return create_app(policy="heuristic", db="sqlite://").openapi()
    except ImportError as e:
        from mkdocs.exceptions import PluginError

        raise PluginError(f"the service page's OpenAPI reference needs {e.name}: "
                          f'pip install -e ".[docs]"') from e


def type_name(schema: dict) -> str:
    """A schema's type in words, models linked to their section: ``list of [Move](#move)``."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(type_name(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " / ".join(f"`{v}`" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {type_name(schema.get('items', {}))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"object of {type_name(schema['additionalProperties'])}"
    return str(kind)


def cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def body_model(content: dict) -> str:
    schema = content.get("application/json", {}).get("schema")
    return type_name(schema) if schema else ""


def openapi_markdown(spec: dict) -> str:
    """The Markdown of the reference: the endpoints table, then the models."""
    out = [f"Made from `/openapi.json` of `canasta_env.bots.service` (OpenAPI "
           f"{spec.get('openapi', '')}, {spec['info']['title']} {spec['info'].get('version', '')}).",
           "", "### Paths", "",
           "| method | path | summary | parameters | body | responses |", "|---|---|---|---|---|---|"]
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            params = ", ".join(f"`{p['name']}` ({p['in']})" for p in op.get("parameters", []))
            body = body_model(op.get("requestBody", {}).get("content", {}))
            responses = "; ".join(f"{code} {body_model(r.get('content', {}))}".strip()
                                  for code, r in op["responses"].items())
            out.append(f"| {method.upper()} | `{path}` | {cell(op.get('summary', ''))} | "
                       f"{params} | {body} | {responses} |")
    out += ["", "### Models", ""]
    for name, model in spec.get("components", {}).get("schemas", {}).items():
        out += [f"#### {name}", ""]
        if model.get("description"):
            out += [cell(model["description"]).replace("``", "`"), ""]
        required = set(model.get("required", []))
        props = model.get("properties", {})
        if not props:
            out += [f"Type: {type_name(model)}.", ""]
            continue
        out += ["| field | type | required | default | description |", "|---|---|---|---|---|"]
        for field, prop in props.items():
            default = f"`{prop['default']!r}`" if "default" in prop else ""
            out.append(f"| `{field}` | {type_name(prop)} | {'yes' if field in required else ''} | "
                       f"{cell(default)} | {cell(prop.get('description', ''))} |")
        out.append("")
    return "\n".join(out)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, openapi_markdown(service_schema()))
