# GNU-style build and install over scripts/build and scripts/test.
#
#   make                      build build/lib/libversiongate.so.*, build/bin/versiongate
#                             and build/versiongate.pc
#   make check                every test (scripts/test)
#   make install PREFIX=/usr  install; DESTDIR=/stage stages it (packagers)
#   make uninstall PREFIX=/usr   remove exactly what install put there
#
# DESTDIR only prefixes where files are copied; nothing installed mentions it.

VERSION    := $(shell cat VERSION)
SOVERSION  := $(firstword $(subst ., ,$(VERSION)))
REAL       := libversiongate.so.$(VERSION)
SONAME     := libversiongate.so.$(SOVERSION)

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

INSTALL      ?= install
INSTALL_DATA ?= $(INSTALL) -m 0644
INSTALL_LIB  ?= $(INSTALL) -m 0755

# What install puts where (relative to DESTDIR); uninstall removes these.
INSTALLED = $(LIBDIR)/$(REAL) $(LIBDIR)/$(SONAME) $(LIBDIR)/libversiongate.so \
            $(INCLUDEDIR)/versiongate.h $(PKGCONFIGDIR)/versiongate.pc \
            $(BINDIR)/versiongate $(MANDIR)/man1/versiongate.1

.PHONY: all library check install uninstall clean

all: library build/versiongate.pc

# Swift's build is incremental on its own: always ask it.
library:
	scripts/build

# Rebuilt whenever make runs: PREFIX may differ from the last run.
# Directories under PREFIX are written as ${prefix}/..., so pkg-config's
# --define-prefix can relocate the tree.
relative = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
build/versiongate.pc: versiongate.pc.in VERSION FORCE
	@mkdir -p build
	sed -e 's|@prefix@|$(PREFIX)|g' -e 's|@libdir@|$(call relative,$(LIBDIR))|g' \
	    -e 's|@includedir@|$(call relative,$(INCLUDEDIR))|g' -e 's|@version@|$(VERSION)|g' $< > $@.new
	mv -f $@.new $@

FORCE:

check:
	scripts/test

install: all
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL_LIB) build/lib/$(REAL) $(DESTDIR)$(LIBDIR)/$(REAL)
	ln -sfn $(REAL) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libversiongate.so
	$(INSTALL_DATA) include/versiongate.h $(DESTDIR)$(INCLUDEDIR)/versiongate.h   # install copies the link's target
	$(INSTALL_DATA) build/versiongate.pc $(DESTDIR)$(PKGCONFIGDIR)/versiongate.pc
	$(INSTALL) -m 0755 build/bin/versiongate $(DESTDIR)$(BINDIR)/versiongate
	$(INSTALL_DATA) man/versiongate.1 $(DESTDIR)$(MANDIR)/man1/versiongate.1

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

clean:
	rm -rf build .build
