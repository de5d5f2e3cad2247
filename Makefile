# GNU-style build and install over scripts/build and scripts/test.
#
#   make                      build build/lib/libversiongate.so.*, build/bin/versiongate,
#                             build/versiongate.pc and the CMake package (build/cmake):
#                             the host build, against this machine's glibc, offline
#   make PORTABLE=1           the portable build instead (glibc 2.31, build/portable;
#                             scripts/setup fetches its sysroot), also for install
#   make check                every test (scripts/test)
#   make install PREFIX=/usr  install; DESTDIR=/stage stages it (packagers)
#   make uninstall PREFIX=/usr   remove exactly what install put there
#
# DESTDIR only prefixes where files are copied; nothing installed mentions it.
# The installed command is linked for LIBDIR (scripts/link_command, libtool's
# relink): no run path when LIBDIR is a directory the loader searches
# (scripts/system_libdir), an absolute RUNPATH to LIBDIR otherwise, never the
# build tree. Installing into an /etc/ld.so.conf directory without DESTDIR
# runs ldconfig, as `libtool --finish` would have you do.

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
CMAKEDIR   ?= $(LIBDIR)/cmake/VersionGate
# The library's libexec: where it looks for its fetch helper, relative to
# its own file (docs/design.md, "The fetch helper"), so not a free choice;
# beside the library, as a multiarch system keeps each architecture's.
HELPERDIR  := $(LIBDIR)/versiongate

INSTALL      ?= install
INSTALL_DATA ?= $(INSTALL) -m 0644
INSTALL_LIB  ?= $(INSTALL) -m 0755

# What install puts where (relative to DESTDIR); uninstall removes these.
INSTALLED = $(LIBDIR)/$(REAL) $(LIBDIR)/$(SONAME) $(LIBDIR)/libversiongate.so \
            $(INCLUDEDIR)/versiongate.h $(PKGCONFIGDIR)/versiongate.pc \
            $(CMAKEDIR)/VersionGateConfig.cmake $(CMAKEDIR)/VersionGateConfigVersion.cmake \
            $(BINDIR)/versiongate $(MANDIR)/man1/versiongate.1 $(HELPERDIR)/versiongate-helper

# The installed command's RUNPATH: empty for a system LIBDIR.
COMMAND_RUNPATH = $(shell scripts/system_libdir '$(LIBDIR)' || echo '$(LIBDIR)')
# After (un)installing into an ld.so.conf directory, the loader's cache.
LDCONFIG = if [ -z '$(DESTDIR)' ] && scripts/system_libdir --conf '$(LIBDIR)'; then ldconfig; fi

# PORTABLE=1: scripts/build --portable, whose outputs sit in build/portable.
ifeq ($(PORTABLE),1)
BUILD_FLAGS := --portable
LIBRARY_DIR := build/portable/lib
else
BUILD_FLAGS :=
LIBRARY_DIR := build/lib
endif

.PHONY: all library check install uninstall clean

all: library build/versiongate.pc build/cmake/VersionGateConfig.cmake build/cmake/VersionGateConfigVersion.cmake

# Swift's build is incremental on its own: always ask it.
library:
	scripts/build $(BUILD_FLAGS)

# Rebuilt whenever make runs: PREFIX may differ from the last run.
# Directories under PREFIX are written as ${prefix}/..., so pkg-config's
# --define-prefix can relocate the tree.
relative = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
build/versiongate.pc: versiongate.pc.in VERSION FORCE
	@mkdir -p build
	sed -e 's|@prefix@|$(PREFIX)|g' -e 's|@libdir@|$(call relative,$(LIBDIR))|g' \
	    -e 's|@includedir@|$(call relative,$(INCLUDEDIR))|g' -e 's|@version@|$(VERSION)|g' $< > $@.new
	mv -f $@.new $@

# The CMake package, with LIBDIR and INCLUDEDIR as installed (rebuilt too).
build/cmake/%.cmake: cmake/%.cmake.in VERSION FORCE
	@mkdir -p build/cmake
	sed -e 's|@libdir@|$(LIBDIR)|g' -e 's|@includedir@|$(INCLUDEDIR)|g' -e 's|@version@|$(VERSION)|g' \
	    -e 's|@soversion@|$(SOVERSION)|g' -e 's|@next_major@|$(shell echo $$(($(SOVERSION) + 1)))|g' $< > $@.new
	mv -f $@.new $@

# The command as installed: linked for LIBDIR once the library is built.
build/install/versiongate: library FORCE
	scripts/link_command $(BUILD_FLAGS) $@ $(COMMAND_RUNPATH)

FORCE:

check:
	scripts/test

install: all build/install/versiongate
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(HELPERDIR)
	$(INSTALL_LIB) $(LIBRARY_DIR)/$(REAL) $(DESTDIR)$(LIBDIR)/$(REAL)
	ln -sfn $(REAL) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libversiongate.so
	$(INSTALL) -m 0755 $(LIBRARY_DIR)/versiongate/versiongate-helper $(DESTDIR)$(HELPERDIR)/versiongate-helper
	$(INSTALL_DATA) include/versiongate.h $(DESTDIR)$(INCLUDEDIR)/versiongate.h   # install copies the link's target
	$(INSTALL_DATA) build/versiongate.pc $(DESTDIR)$(PKGCONFIGDIR)/versiongate.pc
	$(INSTALL_DATA) build/cmake/VersionGateConfig.cmake build/cmake/VersionGateConfigVersion.cmake $(DESTDIR)$(CMAKEDIR)/
	$(INSTALL) -m 0755 build/install/versiongate $(DESTDIR)$(BINDIR)/versiongate
	$(INSTALL_DATA) man/versiongate.1 $(DESTDIR)$(MANDIR)/man1/versiongate.1
	$(LDCONFIG)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(HELPERDIR) 2>/dev/null || true
	$(LDCONFIG)

clean:
	rm -rf build .build .build-portable .build-portable-*
