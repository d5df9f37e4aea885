"""`workbench --batch desk serve|links|revoke`: the scoring desk served to raters in a browser."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.context import OK, USAGE, CommandError, Context, command_group, study_action

DEFAULT_PORT = 8044


def register(sub: argparse._SubParsersAction) -> None:
    actions = command_group(sub, "desk", dest="desk_action",
                            help="serve the blind scoring desk to raters in a browser, one link each",
                            description="Serve a study's scoring desk to its raters' browsers (the terminal desk "
                                        "itself, locked to one rater per link), issue and revoke their links.")

    serve = study_action(
        actions, "serve", serve_desk, help="issue any missing links and serve the desk until interrupted",
        description="Issue a link to every rater of STUDY who has none, write `RATER URL` lines (to --links "
                    "FILE, readable by its owner only, else to standard output), then serve the desk on "
                    "--host (127.0.0.1 unless told) until ctrl+c. A link opens that rater's desk and nothing "
                    "else. A --links FILE written before keeps its links that still hold.",
        examples=("workbench --batch desk serve glenda-crock-sim --links raters.txt",
                  "workbench --batch desk serve glenda-crock-sim --host 0.0.0.0 --port 8443 --cert cert.pem "
                  "--key key.pem --public-url https://desk.example.org:8443 --links raters.txt"))
    _link_options(serve)
    serve.add_argument("--cert", metavar="FILE", help="serve HTTPS with this certificate (PEM; with --key)")
    serve.add_argument("--key", metavar="FILE", help="the certificate's private key (PEM)")

    links = study_action(
        actions, "links", list_links, help="issue a link to every rater who has none; list every rater's link",
        description="Issue a link to every rater of STUDY who has no live link (after `desk revoke`, or "
                    "before the first `desk serve`) and write their `RATER URL` lines, as `desk serve` does, "
                    "without serving. Only a link's hash is kept: a live link issued earlier is listed "
                    "without its URL unless --links names the file that holds it.",
        examples=("workbench --batch desk links glenda-crock-sim --links raters.txt",))
    _link_options(links)

    revoke = study_action(
        actions, "revoke", revoke_link, help="revoke a rater's link (an open sitting on it ends at its next key)",
        description="Revoke RATER's link to STUDY's desk: it gets 403 from now on. `desk links` or the next "
                    "`desk serve` issues a new one.",
        examples=("workbench --batch desk revoke glenda-crock-sim rater-a",))
    revoke.add_argument("rater", metavar="RATER")


def _link_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"the port (default: {DEFAULT_PORT}; 0: any free one)")
    p.add_argument("--links", metavar="FILE", type=Path, help="write the `RATER URL` lines here (mode 0600)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address raters reach the desk at, when it is not http://HOST:PORT (a reverse "
                        "proxy: https://desk.example.org)")
    p.add_argument("--days", type=int, default=30, help="a new link expires after this many days (default: 30)")


def _base_url(args, port: int) -> str:
    if args.public_url:
        if not args.public_url.startswith(("http://", "https://")):
            raise CommandError(f"--public-url must start with http:// or https://, not '{args.public_url}'",
                               code=USAGE)
        return args.public_url
    scheme = "https" if getattr(args, "cert", None) else "http"
    host = f"[{args.host}]" if ":" in args.host else args.host
    return f"{scheme}://{host}:{port}"


def _issue(args, ctx: Context, port: int) -> list:
    from workbench.desk.links import LinkError, issue_links, links_text, read_links_file
    from workbench.files.whole import write_text

    known = read_links_file(args.links) if args.links else {}
    try:
        issued = issue_links(ctx.db(), args.study_id, _base_url(args, port), days=args.days, known=known)
    except LinkError as exc:
        raise CommandError(str(exc)) from None
    for i in issued:
        if i.url is None:
            ctx.info(f"{i.rater}: a live link issued {i.issued_at} is already out; only its hash is kept, so it "
                     f"is not shown again (`desk revoke {args.study_id} {i.rater}` for a new one)")
    if args.links:
        write_text(args.links, links_text(issued), sealed=True)
        ctx.info(f"links for {sum(1 for i in issued if i.url)} rater(s) written to {args.links} (owner only)")
    elif not ctx.json:
        with ctx.stdout() as out:
            out.write(links_text(issued))
    return issued


def _document(issued: list, with_urls: bool) -> list[dict]:
    return [{"rater": i.rater, "new": i.new, "issued_at": i.issued_at, "expires_at": i.expires_at,
             **({"url": i.url} if with_urls else {})} for i in issued]


def list_links(args, ctx: Context) -> int:
    issued = _issue(args, ctx, args.port)
    if ctx.json:
        ctx.emit({"ok": True, "links": _document(issued, args.links is None)}, study=args.study_id)
    return OK


def revoke_link(args, ctx: Context) -> int:
    from workbench.desk.links import LinkError, revoke

    try:
        count = revoke(ctx.db(), args.study_id, args.rater)
    except LinkError as exc:
        raise CommandError(str(exc)) from None
    text = (f"{args.rater}'s link revoked; `desk links {args.study_id}` issues a new one" if count
            else f"{args.rater} had no link to revoke")
    ctx.emit({"ok": True, "rater": args.rater, "revoked": count}, text, study=args.study_id)
    return OK


def serve_desk(args, ctx: Context) -> int:
    from workbench.desk.links import LinkError, study_raters

    if bool(args.cert) != bool(args.key):
        raise CommandError("--cert and --key go together", code=USAGE)
    ssl_context = _ssl_context(args.cert, args.key) if args.cert else None
    try:
        raters = study_raters(ctx.db(), args.study_id)  # refused before anything listens
    except LinkError as exc:
        raise CommandError(str(exc)) from None
    if ctx.serve_desk is None:  # the server is the screens' (textual-serve): the `workbench` command hands it
        raise CommandError("the desk is served by the `workbench` command (screens/launch.py), which this "
                           "entry point is not")

    def ready(port: int) -> None:
        _issue(args, ctx, port)
        ctx.info(f"serving the scoring desk of {args.study_id} to {len(raters)} rater(s) on "
                 f"{args.host}:{port}; ctrl+c stops it")
        if not args.cert and args.host not in ("127.0.0.1", "::1", "localhost"):
            ctx.info("warning: plain HTTP on a reachable address sends the links in the clear; give --cert and "
                     "--key, or keep 127.0.0.1 behind an HTTPS reverse proxy (README, rater mode)")

    try:
        ctx.serve_desk(ctx.db(), ctx.db_path, args.study_id, args.host, args.port, ssl_context=ssl_context,
                       public_url=lambda port: _base_url(args, port), ready=ready, say=ctx.info)
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    ctx.info("the desk server stopped")
    return OK


def tls_context(cert: str | Path, key: str | Path):
    """HTTPS with the researcher's certificate and key (PEM); OSError or ssl.SSLError when unusable."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def _ssl_context(cert: str, key: str):
    import ssl

    try:
        return tls_context(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise CommandError(f"cannot use --cert {cert} --key {key}: {exc}") from None
