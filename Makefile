# SPDX-License-Identifier: GPL-2.0
# memwalk: the module (see Kbuild), memwalk-client and the selftests.
#
#   make                    module against KDIR (the running kernel's build
#                           dir), client, selftests
#   make KVER=6.1|6.12|7.2|6.12-rt|arm64-6.1|arm64-6.12|arm64-7.2  module against one of the project's kernels
#   make setup              install everything (Debian 12, root)
#   make check              lint, builds, host tests, VM suite on all kernels,
#                           the reliability lane on the debug kernel
#   make check-debug        the reliability lane alone
#   make demo               boot a VM, load memwalk, show the client at work
#   make lab [NAME=lab]     list the virtual-memory labs (labs/), or run one's
#                           steps in a VM; SHELL=1: a guest shell at each step
#   make bench              memwalk against pagemap/kpageflags/PAGEMAP_SCAN
#   make deb                the Debian packages memwalk-dkms, memwalk-client
#                           (debian/) into out/deb/
#   make install | install-client | dkms-install | clean
VERSION  := 0.1.0
KVER     ?=
KDIR     ?= /lib/modules/$(shell uname -r)/build
PREFIX   ?= /usr/local
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR  ?=
# The cache make setup fills (scripts/lib.sh: MW_CACHE).
MW_CACHE ?= $(HOME)/.cache/memwalk
KSFT_DIR ?= $(MW_CACHE)/ksrc-6.1/tools/testing/selftests

SCRIPTS := $(CURDIR)/scripts

# make lab SHELL=1 asks for a shell in the guest, but SHELL is make's own
# shell: keep the value, give make /bin/sh back, and pass neither down.
ifeq ($(origin SHELL),command line)
LAB_SHELL := $(SHELL)
override SHELL := /bin/sh
MAKEOVERRIDES := $(filter-out SHELL=%,$(MAKEOVERRIDES))
endif

.PHONY: all module client selftests setup check check-debug bench demo lab install install-client \
	dkms-install dkms-uninstall deb clean

all: module client selftests

ifneq ($(KVER),)
module:
	$(SCRIPTS)/build-module.sh $(KVER)
else
module:
	@test -d $(KDIR) || { echo "memwalk: no kernel build dir $(KDIR);" \
		"use KDIR=/path/to/headers or KVER=6.1|6.12|7.2|6.12-rt|arm64-6.1|arm64-6.12|arm64-7.2 (after make setup)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
endif

client:
	$(MAKE) -C userspace TOP=$(CURDIR)

selftests:
	$(MAKE) -C selftests TOP=$(CURDIR) KSFT_DIR=$(KSFT_DIR)

setup:
	$(SCRIPTS)/setup.sh

check:
	$(SCRIPTS)/check.sh

check-debug:
	$(SCRIPTS)/check.sh --debug-only

bench:
	$(SCRIPTS)/bench.sh "$(or $(KVER),6.1 6.12 7.2)"

demo:
	$(SCRIPTS)/demo.sh $(or $(KVER),6.12)

lab:
	$(SCRIPTS)/lab.sh "$(NAME)" $(or $(KVER),6.12) "$(LAB_SHELL)"

install: module install-client
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	-depmod -a

# The client, its man page and its bash completion (which bash-completion
# finds under $(PREFIX)/share, /usr/local/share included).
install-client: client
	install -D -m 0755 userspace/memwalk-client $(DESTDIR)$(PREFIX)/bin/memwalk-client
	install -D -m 0644 userspace/memwalk-client.1 $(DESTDIR)$(MANDIR)/man1/memwalk-client.1
	install -D -m 0644 userspace/bash-completion/memwalk-client $(DESTDIR)$(BASHCOMPDIR)/memwalk-client

dkms-install:
	rm -rf /usr/src/memwalk-$(VERSION)
	mkdir -p /usr/src/memwalk-$(VERSION)
	cp -a Kbuild dkms.conf module uapi /usr/src/memwalk-$(VERSION)/
	dkms add -m memwalk -v $(VERSION)
	dkms install -m memwalk -v $(VERSION)

dkms-uninstall:
	-dkms remove -m memwalk -v $(VERSION) --all
	rm -rf /usr/src/memwalk-$(VERSION)

# With dpkg-buildpackage on a copy of the tree; debian/changelog's top entry
# must be VERSION (debian/rules checks it, and dkms.conf's).
deb:
	$(SCRIPTS)/deb.sh build

clean:
	-test -d $(KDIR) && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace TOP=$(CURDIR) clean
	$(MAKE) -C selftests TOP=$(CURDIR) clean
	rm -rf out
