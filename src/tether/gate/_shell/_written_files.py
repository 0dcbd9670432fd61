"""The files ``cp``, ``mv``, ``ln``, ``install`` and ``wget`` write, read as they read their
options (``getopt_long``, :mod:`._getopt`).

A reader that knew ``-t DIR`` and ``--target-directory=DIR`` missed ``mv --targ=DIR`` (a GNU
abbreviation), so ``mv --targ=/root/.ssh authorized_keys`` wrote outside the workspace while
``mv -t /root/.ssh authorized_keys`` is denied; one that knew only wget's ``-O`` missed the
log it writes with ``-o``/``-a`` (``--output-f=``...) and the directory ``-P`` saves into.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._getopt import Grammar, grammar, read_options

__all__ = ["WRITERS", "written_files"]

_BACKUP = "backup=?/b suffix=/S target-directory=/t no-target-directory/T verbose/v help version"
WRITERS: dict[str, Grammar] = {
    "cp": grammar(
        "abdfHilLnprst:uvxPRS:TZ",
        f"{_BACKUP} archive/a attributes-only context=?/Z copy-contents dereference/L "
        "force/f interactive/i link/l no-clobber/n no-dereference/P no-preserve= "
        "one-file-system/x parents path preserve=? recursive/R reflink=? remove-destination "
        "sparse= strip-trailing-slashes symbolic-link/s update/u",
    ),
    "mv": grammar(
        "bfint:uvS:TZ",
        f"{_BACKUP} context/Z force/f interactive/i no-clobber/n strip-trailing-slashes update/u",
    ),
    "ln": grammar(
        "bdfinrst:vFLPS:T",
        f"{_BACKUP} directory/F force/f interactive/i logical/L no-dereference/n physical/P "
        "relative/r symbolic/s",
    ),
    "install": grammar(
        "bcCdDg:m:o:pst:vS:TZ",
        f"{_BACKUP} compare/C context=?/Z directory/d group=/g mode=/m owner=/o "
        "preserve-timestamps/p preserve-context strip/s strip-program=",
    ),
    # wget 1.21's options as --help lists them (it also takes --no-X of each flag: an
    # abbreviation of one of those reads here as an unknown option, a problem, not a file).
    "wget": grammar(
        "a:bcde:hi:kl:mn:o:pqrt:vw:xA:B:D:EFHI:KL:NO:P:Q:R:ST:U:VX:Y:46",
        "version/V help/h background/b execute=/e output-file=/o append-output=/a debug/d "
        "quiet/q verbose/v report-speed= input-file=/i force-html/F base=/B config= no-config "
        "rejected-log= tries=/t retry-connrefused retry-on-http-error= output-document=/O "
        "no-netrc continue/c start-pos= progress= show-progress timestamping/N "
        "no-if-modified-since no-use-server-timestamps server-response/S spider timeout=/T "
        "dns-timeout= connect-timeout= read-timeout= wait=/w waitretry= random-wait no-proxy "
        "quota=/Q bind-address= limit-rate= no-dns-cache restrict-file-names= ignore-case "
        "inet4-only/4 inet6-only/6 prefer-family= user= password= ask-password use-askpass= "
        "no-iri local-encoding= remote-encoding= unlink xattr force-directories/x "
        "protocol-directories directory-prefix=/P cut-dirs= http-user= http-password= no-cache "
        "default-page= adjust-extension/E ignore-length header= compression= max-redirect= "
        "proxy-user= proxy-password= referer= save-headers user-agent=/U no-http-keep-alive "
        "no-cookies load-cookies= save-cookies= keep-session-cookies post-data= post-file= "
        "method= body-data= body-file= content-disposition content-on-error auth-no-challenge "
        "secure-protocol= https-only no-check-certificate certificate= certificate-type= "
        "private-key= private-key-type= ca-certificate= ca-directory= crl-file= pinnedpubkey= "
        "ciphers= no-hsts hsts-file= ftp-user= ftp-password= no-remove-listing no-glob "
        "no-passive-ftp preserve-permissions retr-symlinks ftps-implicit ftps-resume-ssl "
        "ftps-clear-data-connection ftps-fallback-to-ftp warc-file= warc-header= warc-max-size= "
        "warc-cdx warc-dedup= no-warc-compression no-warc-digests no-warc-keep-log "
        "warc-tempdir= recursive/r level=/l delete-after convert-links/k convert-file-only "
        "backups= backup-converted/K mirror/m page-requisites/p strict-comments accept=/A "
        "reject=/R accept-regex= reject-regex= regex-type= domains=/D exclude-domains= "
        "follow-ftp follow-tags= ignore-tags= span-hosts/H relative/L include-directories=/I "
        "trust-server-names exclude-directories=/X",
    ),
}
"""The writers and their grammars (coreutils 9.1, wget 1.21)."""


_WGET_WRITES = ("O", "o", "a", "P", "save-cookies", "rejected-log", "hsts-file")
_WGETRC_WRITES = frozenset({"outputdocument", "logfile", "dirprefix", "savecookies",
                            "rejectedlog", "hstsfile"})  # fmt: skip
"""wgetrc commands (``wget -e output_document=FILE``) naming a file wget writes: wget
compares their names without case, ``_`` or ``-``."""


def _wgetrc_file(command: str | None) -> str | None:
    """The file a ``-e`` command makes wget write (``""``: none; ``None``: it expands at run
    time)."""
    if command is None:
        return None
    name, _, value = command.partition("=")
    normal = name.strip().lower().replace("_", "").replace("-", "")
    return value.strip() if normal in _WGETRC_WRITES else ""


def written_files(name: str, values: Sequence[str | None]) -> list[str | None]:
    """The files (and target directories) ``name`` writes: the ``-t`` directories, else the
    last of two or more operands (every operand of ``install -d``); for wget the ``-O``
    document, the ``-o``/``-a`` log and the other files it saves, and ``-P``'s directory."""
    read = read_options(WRITERS[name], values)
    if name == "wget":
        written = [v for key in _WGET_WRITES for v in read.values(key)]
        written += [_wgetrc_file(command) for command in read.values("e")]
        return [v for v in written if v not in {"-", ""}]
    operands = [values[i] for i in read.operands]
    if read.given("t"):
        return read.values("t")
    if name == "install" and read.given("d"):
        return operands
    return operands[-1:] if len(operands) >= 2 else []
