"""The files ``cp``, ``mv``, ``ln``, ``install``, ``wget`` and ``curl`` write, read as they read
their options (``getopt_long``, :mod:`._getopt`; curl's own parser reads the same way: clusters,
attached values, unambiguous abbreviations, options anywhere).

A reader that knew ``-t DIR`` and ``--target-directory=DIR`` missed ``mv --targ=DIR`` (a GNU
abbreviation), so ``mv --targ=/root/.ssh authorized_keys`` wrote outside the workspace while
``mv -t /root/.ssh authorized_keys`` is denied; one that knew only wget's ``-O`` missed the
log it writes with ``-o``/``-a`` (``--output-f=``...) and the directory ``-P`` saves into; one
that knew only curl's ``-o`` missed the headers (``-D``), cookies (``-c``), traces, ``--stderr``
and the rest curl writes, and where ``-O`` saves (``--output-dir``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace
from urllib.parse import urlsplit

from ._getopt import Grammar, ReadOptions, grammar, read_options

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
        "a:bcde:hi:kl:mn:o:pqrt:vw:xA:B:D:EFHI:KLNO:P:Q:R:ST:U:VX:Y:46",
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
        "backups=? backup-converted/K mirror/m page-requisites/p strict-comments accept=/A "
        "reject=/R accept-regex= reject-regex= regex-type= domains=/D exclude-domains= "
        "follow-ftp follow-tags= ignore-tags= span-hosts/H relative/L include-directories=/I "
        "trust-server-names exclude-directories=/X",
    ),
    # curl 7.88's options as `curl --help all` lists them (it also takes --no-X of each flag:
    # an abbreviation of one of those reads here as an unknown option, a problem, not a file).
    "curl": grammar(
        "aE:K:C:b:c:d:qD:fF:P:GgIH:h0ik46jlLMm:nNo:Z#x:U:pQ:r:e:JORX:SsY:y:23t:z:1T:Bu:A:vVw:",
        "abstract-unix-socket= alt-svc= anyauth append/a aws-sigv4= basic cacert= capath= cert=/E "
        "cert-status cert-type= ciphers= compressed compressed-ssh config=/K connect-timeout= "
        "connect-to= continue-at=/C cookie=/b cookie-jar=/c create-dirs create-file-mode= crlf "
        "crlfile= curves= data=/d data-ascii= data-binary= data-raw= data-urlencode= delegation= "
        "digest disable/q disable-eprt disable-epsv disallow-username-in-url dns-interface= "
        "dns-ipv4-addr= dns-ipv6-addr= dns-servers= doh-cert-status doh-insecure doh-url= "
        "dump-header=/D egd-file= engine= etag-compare= etag-save= expect100-timeout= fail/f "
        "fail-early fail-with-body false-start form=/F form-escape form-string= ftp-account= "
        "ftp-alternative-to-user= ftp-create-dirs ftp-method= ftp-pasv ftp-port=/P ftp-pret "
        "ftp-skip-pasv-ip ftp-ssl-ccc ftp-ssl-ccc-mode= ftp-ssl-control get/G globoff/g "
        "happy-eyeballs-timeout-ms= haproxy-protocol head/I header=/H help/h hostpubmd5= "
        "hostpubsha256= hsts= http0.9 http1.0/0 http1.1 http2 http2-prior-knowledge http3 "
        "http3-only ignore-content-length include/i insecure/k interface= ipv4/4 ipv6/6 json= "
        "junk-session-cookies/j keepalive-time= key= key-type= krb= libcurl= limit-rate= "
        "list-only/l local-port= location/L location-trusted login-options= mail-auth= mail-from= "
        "mail-rcpt= mail-rcpt-allowfails manual/M max-filesize= max-redirs= max-time=/m metalink "
        "negotiate netrc/n netrc-file= netrc-optional next/: no-alpn no-buffer/N no-clobber "
        "no-keepalive no-npn no-progress-meter no-sessionid noproxy= ntlm ntlm-wb oauth2-bearer= "
        "output=/o output-dir= parallel/Z parallel-immediate parallel-max= pass= path-as-is "
        "pinnedpubkey= post301 post302 post303 preproxy= progress-bar/# proto= proto-default= "
        "proto-redir= proxy=/x proxy-anyauth proxy-basic proxy-cacert= proxy-capath= proxy-cert= "
        "proxy-cert-type= proxy-ciphers= proxy-crlfile= proxy-digest proxy-header= proxy-insecure "
        "proxy-key= proxy-key-type= proxy-negotiate proxy-ntlm proxy-pass= proxy-pinnedpubkey= "
        "proxy-service-name= proxy-ssl-allow-beast proxy-ssl-auto-client-cert "
        "proxy-tls13-ciphers= proxy-tlsauthtype= proxy-tlspassword= proxy-tlsuser= proxy-tlsv1 "
        "proxy-user=/U proxy1.0= proxytunnel/p pubkey= quote=/Q random-file= range=/r rate= raw "
        "referer=/e remote-header-name/J remote-name/O remote-name-all remote-time/R "
        "remove-on-error request=/X request-target= resolve= retry= retry-all-errors "
        "retry-connrefused retry-delay= retry-max-time= sasl-authzid= sasl-ir service-name= "
        "show-error/S silent/s socks4= socks4a= socks5= socks5-basic socks5-gssapi "
        "socks5-gssapi-nec socks5-gssapi-service= socks5-hostname= speed-limit=/Y speed-time=/y "
        "ssl ssl-allow-beast ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort "
        "sslv2/2 sslv3/3 stderr= styled-output suppress-connect-headers tcp-fastopen tcp-nodelay "
        "telnet-option=/t tftp-blksize= tftp-no-options time-cond=/z tls-max= tls13-ciphers= "
        "tlsauthtype= tlspassword= tlsuser= tlsv1/1 tlsv1.0 tlsv1.1 tlsv1.2 tlsv1.3 tr-encoding "
        "trace= trace-ascii= trace-time unix-socket= upload-file=/T url= url-query= use-ascii/B "
        "user=/u user-agent=/A verbose/v version/V write-out=/w xattr",
    ),
}
"""The writers and their grammars (coreutils 9.1, wget 1.21, curl 7.88)."""

_URL_GLOB_PART = re.compile(r"#\d")
"""``-o 'x_#1'``: curl fills ``#1`` with what the URL's first ``{a,b}`` or ``[1-3]`` matched."""

_CURL_WRITES = ("o", "D", "c", "trace", "trace-ascii", "stderr", "libcurl", "etag-save", "hsts",
                "alt-svc")  # fmt: skip
"""curl's options naming a file it writes (``--hsts`` and ``--alt-svc`` caches are read and
written back)."""


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
    document, the ``-o``/``-a`` log and the other files it saves, and ``-P``'s directory; for
    curl the files of :data:`_CURL_WRITES` and where ``-O`` saves. Options after operands are
    read both ways: as getopt permutes them, and as it reads them under ``POSIXLY_CORRECT``
    (the first operand ends the options)."""
    spec = WRITERS[name]
    written = _written(name, read_options(spec, values), values)
    in_order = _written(name, read_options(replace(spec, permute=False), values), values)
    return written + [w for w in in_order if w not in written]


def _written(name: str, read: ReadOptions, values: Sequence[str | None]) -> list[str | None]:
    if name == "curl":
        return [v for v in _curl_writes(read, values) if v not in {"-", ""}]
    if name == "wget":
        written = [v for key in _WGET_WRITES for v in read.values(key)]
        written += [_wgetrc_file(command) for command in read.values("e")]
        return [v for v in written if v not in {"-", ""}]
    operands = [values[i] for i in read.operands]
    if read.given("t"):
        directories = read.values("t")
        return directories + _into(directories, operands)
    if name == "install" and read.given("d"):
        return operands
    if len(operands) < 2:
        return []
    return [operands[-1], *_into(operands[-1:], operands[:-1])]


def _into(directories: list[str | None], sources: list[str | None]) -> list[str | None]:
    """What a copy, move or link of ``sources`` into ``directories`` writes: each source's
    name there (``cp x/.bashrc ~`` writes ``~/.bashrc``); ``None`` where a part expands at run
    time."""
    written: list[str | None] = []
    for directory in directories:
        for source in sources:
            if directory is None or source is None:
                written.append(None)
            elif name := posixpath.basename(source.rstrip("/")):
                written.append(posixpath.join(directory, name))
    return written


def _curl_writes(read: ReadOptions, values: Sequence[str | None]) -> list[str | None]:
    """What curl writes: each file option's file, ``-o`` files inside ``--output-dir`` (unknown
    when a ``#N`` takes a part of a URL glob), and for ``-O``/``--remote-name-all`` the URL's
    last path segment there (the server's name with ``-J``: unknown)."""
    directories = read.values("output-dir")
    directory = directories[-1] if directories else ""
    written = [v for key in _CURL_WRITES if key != "o" for v in read.values(key)]
    written += [_in_output_dir(output, directory) for output in read.values("o")]
    if read.given("O") or read.given("remote-name-all"):
        urls = [values[i] for i in read.operands] + read.values("url")
        written += [_remote_name(url, directory) for url in urls]
        if read.given("J"):
            written.append(None)
    return written


def _in_output_dir(output: str | None, directory: str | None) -> str | None:
    """Where ``curl -o OUTPUT`` writes: inside ``--output-dir`` unless absolute."""
    if output is None or directory is None or _URL_GLOB_PART.search(output):
        return None
    if output == "-" or not directory or output.startswith("/"):
        return output
    return posixpath.join(directory, output)


def _remote_name(url: str | None, directory: str | None) -> str | None:
    """Where ``curl -O`` saves ``url`` (``None``: it expands at run time)."""
    if url is None or directory is None:
        return None
    name = posixpath.basename(urlsplit(url).path)
    return posixpath.join(directory, name) if directory else name
