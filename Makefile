# hpcc-ra top-level Makefile.
#   make            build everything into bin/ (objects in build/<mpi>/)
#   make run        install what is missing, build, run the main job on all cores
#   make test       install what is missing, build, run the whole test suite
#   make deps       install missing Debian packages (root) or say which ones
#   MPI=mpich|openmpi   MPI implementation (default mpich)
#   SANITIZE=address,undefined   sanitizer build (separate object dir)
#   WERROR=1        warnings are errors (on by default when CI=true)
#   PAPI=0|1        hardware counters (--papi); default 1 when papi.h is found
#   make install PREFIX=/usr/local   binaries, libtorus.a, torus headers, scripts

MPI ?= mpich
ifeq ($(filter $(MPI),mpich openmpi),)
$(error MPI=$(MPI) is not supported: allowed MPI=mpich or MPI=openmpi)
endif
MPICC  ?= mpicc.$(MPI)
MPIRUN ?= mpirun.$(MPI)
CC := $(MPICC)

NPROC := $(shell nproc 2>/dev/null || echo 2)
PKGS_mpich   := mpich libmpich-dev
PKGS_openmpi := openmpi-bin libopenmpi-dev
PKGS := make gcc liblapack-dev libopenblas0-serial libmetis-dev $(PKGS_$(MPI))
# Optional: hardware counters (--papi), plots (run_scripts/plot.sh), script lint.
PKGS_OPTIONAL := libpapi-dev gnuplot-nox shellcheck

VERSION := 0.2.0
OPT ?= -O3
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wcast-qual -Wformat=2
ifeq ($(CI),true)
WERROR ?= 1
endif
ifeq ($(WERROR),1)
WARN += -Werror
endif
SAN_FLAGS :=
BUILD := build/$(MPI)
ifneq ($(SANITIZE),)
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -g
BUILD := build/$(MPI)-san
OPT := -O1
endif
# PAPI is optional: built in when its header is found (a cluster's module
# may put it on CPATH); PAPI=0 leaves it out.  Each choice has its objects.
PAPI ?= $(shell echo '\#include <papi.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0)
ifeq ($(filter $(PAPI),0 1),)
$(error PAPI=$(PAPI) is not supported: allowed PAPI=0 or PAPI=1)
endif
ifeq ($(PAPI),1)
PAPI_DEFS := -DHAVE_PAPI
PAPI_LIBS := -lpapi
else
BUILD := $(BUILD)-nopapi
endif
CFLAGS ?= $(OPT) -g
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp $(WARN) $(CFLAGS) $(SAN_FLAGS) \
              -Ihpcc_ra -Itorus -Ioptimized -Isparsest_cut -Itorusmodel -MMD -MP \
              -DHPCC_RA_VERSION='"$(VERSION)"' $(PAPI_DEFS)
LDFLAGS += -fopenmp $(SAN_FLAGS)
LDLIBS += $(PAPI_LIBS) -lm
# What --version and the hpccoutf.txt header say about the build.
BUILD_INFO := $(strip $(subst ",,$(subst ',,$(CC) $(CFLAGS) $(SAN_FLAGS) MPI=$(MPI) PAPI=$(PAPI))))

HARNESS_SRC := $(wildcard hpcc_ra/*.c)
HARNESS_OBJ := $(HARNESS_SRC:%.c=$(BUILD)/%.o)
LIBRA := $(BUILD)/libhpcc_ra.a
TORUS_SRC := $(wildcard torus/*.c)
TORUS_OBJ := $(TORUS_SRC:%.c=$(BUILD)/%.o)
LIBTORUS := $(BUILD)/libtorus.a
ROPT_OBJ := $(BUILD)/optimized/ropt.o $(BUILD)/optimized/ropt_sim.o
SC_SRC := $(filter-out sparsest_cut/sparsest_cut.c,$(wildcard sparsest_cut/*.c))
SC_OBJ := $(SC_SRC:%.c=$(BUILD)/%.o)
LIBSC := $(BUILD)/libsparsest.a
SC_LIBS := -lmetis -llapack -lblas
TM_SRC := $(filter-out torusmodel/torusmodel.c torusmodel/ra_calibrate.c,$(wildcard torusmodel/*.c))
TM_OBJ := $(TM_SRC:%.c=$(BUILD)/%.o)
LIBTM := $(BUILD)/libtorusmodel.a

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BIN := $(BUILD)/tests/ra_seq

PROGS := bin/ra_base bin/ra_opt bin/sparsest_cut bin/torusmodel bin/ra_calibrate
# bin/ binaries are shared by both MPI flavours: relink when the flavour changes.
FLAVOUR := $(BUILD)/flavour

PREFIX ?= /usr/local
DESTDIR ?=
SCRIPTS := run_scripts/hpcc_submission.sh run_scripts/sweep.sh run_scripts/plot.sh run_scripts/compare.sh run_scripts/common.sh

.PHONY: all deps run test run-tests clean distclean install FORCE
all: $(PROGS) $(UNIT_BIN) $(TOOL_BIN)

# The flavour file is rewritten (new mtime) only when the flavour changed; it
# has a recipe of its own so make re-reads its time before deciding to link.
$(FLAVOUR): FORCE
	@mkdir -p $(BUILD) bin
	@echo "$(MPI) $(SANITIZE) $(CFLAGS) PAPI=$(PAPI)" > $@.new
	@if cmp -s $@.new bin/.flavour; then rm -f $@.new; else mv $@.new $@; cp $@ bin/.flavour; fi
FORCE:

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The driver carries the build description; rebuild it when the flavour changes.
$(BUILD)/hpcc_ra/ra_main.o: ALL_CFLAGS += -DHPCC_RA_BUILD='"$(BUILD_INFO)"'
$(BUILD)/hpcc_ra/ra_main.o: $(FLAVOUR)

$(LIBRA): $(HARNESS_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBTORUS): $(TORUS_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBSC): $(SC_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBTM): $(TM_OBJ)
	@rm -f $@
	ar rcs $@ $^

bin/torusmodel: $(BUILD)/torusmodel/torusmodel.o $(LIBTM) $(ROPT_OBJ) $(LIBSC) $(LIBTORUS) $(LIBRA) $(FLAVOUR)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $< $(LIBTM) $(ROPT_OBJ) $(LIBSC) $(LIBTORUS) $(LIBRA) $(SC_LIBS) $(LDLIBS)

bin/ra_calibrate: $(BUILD)/torusmodel/ra_calibrate.o $(ROPT_OBJ) $(LIBTORUS) $(LIBRA) $(FLAVOUR)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $< $(ROPT_OBJ) $(LIBTORUS) $(LIBRA) $(LDLIBS)

bin/sparsest_cut: $(BUILD)/sparsest_cut/sparsest_cut.o $(LIBSC) $(LIBTORUS) $(FLAVOUR)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $< $(LIBSC) $(LIBTORUS) $(SC_LIBS) $(LDLIBS)

bin/ra_opt: $(BUILD)/optimized/ra_opt.o $(ROPT_OBJ) $(LIBTORUS) $(LIBRA) $(FLAVOUR)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $(BUILD)/optimized/ra_opt.o $(ROPT_OBJ) $(LIBTORUS) $(LIBRA) $(LDLIBS)

bin/ra_base: $(BUILD)/baseline/ra_base.o $(LIBRA) $(FLAVOUR)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $(BUILD)/baseline/ra_base.o $(LIBRA) $(LDLIBS)

$(BUILD)/tests/ra_seq: $(BUILD)/tests/tools/ra_seq.o $(LIBRA)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBRA) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBTM) $(ROPT_OBJ) $(LIBSC) $(LIBTORUS) $(LIBRA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBTM) $(ROPT_OBJ) $(LIBSC) $(LIBTORUS) $(LIBRA) $(SC_LIBS) $(LDLIBS)

deps:
	@MPI=$(MPI) sh tests/deps.sh $(PKGS) -- $(PKGS_OPTIONAL)

# After deps, a fresh make works out PAPI (and so BUILD) again: libpapi-dev
# may have just been installed.
run: deps
	@$(MAKE) --no-print-directory all
	$(MPIRUN) $(MPIRUN_FLAGS) -n $(NPROC) bin/ra_opt --log2-table 27

test: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory run-tests

run-tests:
	@MPI=$(MPI) MPIRUN="$(MPIRUN)" BUILD=$(BUILD) PAPI=$(PAPI) bash tests/run_tests.sh

# Binaries, the torus library and its headers, and the run scripts (under
# share/hpcc-ra, with hpcc-ra-* links in bin/ that find the binaries beside them).
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/share/hpcc-ra/run_scripts/slurm
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIBTORUS) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 torus/torus.h torus/torus_mpi.h torus/torus_sim.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(SCRIPTS) $(DESTDIR)$(PREFIX)/share/hpcc-ra/run_scripts/
	install -m 644 run_scripts/slurm/*.sbatch $(DESTDIR)$(PREFIX)/share/hpcc-ra/run_scripts/slurm/
	echo "$(MPI)" > $(DESTDIR)$(PREFIX)/share/hpcc-ra/mpi_flavour
	ln -sf ../share/hpcc-ra/run_scripts/hpcc_submission.sh $(DESTDIR)$(PREFIX)/bin/hpcc-ra-submission
	ln -sf ../share/hpcc-ra/run_scripts/sweep.sh $(DESTDIR)$(PREFIX)/bin/hpcc-ra-sweep
	ln -sf ../share/hpcc-ra/run_scripts/plot.sh $(DESTDIR)$(PREFIX)/bin/hpcc-ra-plot
	@echo "installed into $(DESTDIR)$(PREFIX): bin/ (ra_base ra_opt sparsest_cut torusmodel ra_calibrate hpcc-ra-submission hpcc-ra-sweep hpcc-ra-plot), lib/libtorus.a, include/torus*.h, share/hpcc-ra/run_scripts"

clean:
	rm -rf build bin

distclean: clean

# Open MPI refuses root and oversubscription unless told; both are normal here.
ifeq ($(MPI),openmpi)
MPIRUN_FLAGS ?= --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root)
endif

-include $(shell find build -name '*.d' 2>/dev/null)
