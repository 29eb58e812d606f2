# hpcc-ra top-level Makefile.
#   make            build everything into bin/ (objects in build/<mpi>/)
#   make run        install what is missing, build, run the main job on all cores
#   make test       install what is missing, build, run the whole test suite
#   make deps       install missing Debian packages (root) or say which ones
#   MPI=mpich|openmpi   MPI implementation (default mpich)
#   SANITIZE=address,undefined   sanitizer build (separate object dir)
#   WERROR=1        warnings are errors (on by default when CI=true)
#   PAPI=0|1        hardware counters (--papi); default 1 when papi.h is found
#   make install PREFIX=/usr/local   binaries, man pages, libtorus.a, torus headers and
#                   torus.pc (pkg-config), scripts

MPI ?= mpich
ifeq ($(filter $(MPI),mpich openmpi),)
$(error MPI=$(MPI) is not supported: allowed MPI=mpich or MPI=openmpi)
endif
MPICC  ?= mpicc.$(MPI)
MPIRUN ?= mpirun.$(MPI)
CC := $(MPICC)
OMP := -fopenmp
# FUZZ=1 (set by `make fuzz`): the same sources built by clang through the
# MPI wrapper, with libFuzzer's coverage, ASan and UBSan (every UBSan
# report a crash), in a directory of their own.  Debian's clang has no
# omp.h, and no parser needs threads: OpenMP is off there.
ifeq ($(FUZZ),1)
CC := env MPICH_CC=clang OMPI_CC=clang $(MPICC)
SANITIZE := fuzzer-no-link,address,undefined
PAPI := 0
OMP :=
endif

NPROC := $(shell nproc 2>/dev/null || echo 2)
PKGS_mpich   := mpich libmpich-dev
PKGS_openmpi := openmpi-bin libopenmpi-dev
PKGS := make gcc liblapack-dev libopenblas0-serial libmetis-dev $(PKGS_$(MPI))
# `make fuzz` only: clang with libFuzzer and its sanitizer runtimes.
PKGS_FUZZ := clang libclang-rt-14-dev
# Optional: hardware counters (--papi), plots (run_scripts/plot.sh), script
# lint, man pages (help2man, man-db to read them), pkg-config for the
# installed library's test, HPCC itself (hpcc: compare.sh's row and the
# cross-check of hpccoutf.txt against HPCC's own output in make test), and
# mpi4py with numpy (tests/suite_mpi4py.sh: the MPI adapter under an
# outside program; Debian's mpi4py is built on Open MPI).
PKGS_OPTIONAL := libpapi-dev gnuplot-nox shellcheck help2man man-db pkg-config hpcc python3-mpi4py python3-numpy

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
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer -g
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
ifeq ($(FUZZ),1)
BUILD := build/fuzz-$(MPI)
WARN += -Wno-unknown-pragmas -Wno-source-uses-openmp
endif
CFLAGS ?= $(OPT) -g
# The layers (layers.mk, the one table; docs/architecture.md draws it): a
# folder compiles with its own headers and those of the layers it uses,
# nothing above, and a binary links its layer's library and those of every
# layer under it, each after the libraries that use it.  torusmodel/ sees
# optimized/ only through its one narrow --simulate entry (ropt_timed.h).
include layers.mk
# the folder of a use (optimized/ropt_timed.h: optimized)
use_folder = $(if $(filter %.h,$(1)),$(patsubst %/,%,$(dir $(1))),$(1))
# what a folder may include: its uses and theirs, but not past a one-header
# grant (which stays folder/header.h: tests/check_layers.sh holds it to that)
inc_grants = $(foreach u,$(USES_$(1)),$(u) $(if $(filter %.h,$(u)),,$(call inc_grants,$(u))))
# the layers a folder links: its uses and theirs, a granted header's folder with what it uses
link_layers = $(foreach u,$(USES_$(1)),$(call use_folder,$(u)) $(call link_layers,$(call use_folder,$(u))))
# each word at its last place: a library then comes after every one that uses it
uniq_last = $(strip $(if $(1),$(if $(filter $(firstword $(1)),$(wordlist 2,$(words $(1)),$(1))),,$(firstword $(1))) $(call uniq_last,$(wordlist 2,$(words $(1)),$(1)))))
# INC_<folder> (tools/collbench: INC_tools_collbench)
$(foreach l,$(LAYERS),$(eval INC_$(subst /,_,$(l)) := $(addprefix -I,$(call uniq_last,$(l) $(foreach u,$(call inc_grants,$(l)),$(call use_folder,$(u)))))))
BASE_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(OMP) $(WARN) $(CFLAGS) $(SAN_FLAGS) -MMD -MP \
               -DHPCC_RA_VERSION='"$(VERSION)"' $(PAPI_DEFS)
LDFLAGS += $(OMP) $(SAN_FLAGS)
LDLIBS += $(PAPI_LIBS) -lm
# What --version and the hpccoutf.txt header say about the build.
BUILD_INFO := $(strip $(subst ",,$(subst ',,$(CC) $(CFLAGS) $(SAN_FLAGS) MPI=$(MPI) PAPI=$(PAPI))))

# One library per layer (layers.mk's LIB_<folder>); torus/coll's files are
# in libtorus.a.  A program's main is in none.
KIT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard kit/*.c))
LIBKIT := $(BUILD)/$(LIB_kit)
TORUS_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard torus/*.c torus/coll/*.c))
LIBTORUS := $(BUILD)/$(LIB_torus)
HARNESS_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard hpcc_ra/*.c))
LIBRA := $(BUILD)/$(LIB_hpcc_ra)
BASE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out baseline/ra_base.c,$(wildcard baseline/*.c)))
LIBBASE := $(BUILD)/$(LIB_baseline)
ROPT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out optimized/ra_opt.c,$(wildcard optimized/*.c)))
LIBROPT := $(BUILD)/$(LIB_optimized)
SC_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out sparsest_cut/sparsest_cut.c,$(wildcard sparsest_cut/*.c)))
LIBSC := $(BUILD)/$(LIB_sparsest_cut)
TM_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out torusmodel/torusmodel.c,$(wildcard torusmodel/*.c)))
LIBTM := $(BUILD)/$(LIB_torusmodel)
# The programs of tools/ with a folder each: every file but main.c in a library.
CB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out tools/collbench/main.c,$(wildcard tools/collbench/*.c)))
LIBCB := $(BUILD)/$(LIB_tools/collbench)
CAL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out tools/ra_calibrate/main.c,$(wildcard tools/ra_calibrate/*.c)))
LIBCAL := $(BUILD)/$(LIB_tools/ra_calibrate)
# The system libraries a layer's library needs, linked after the layers'.
SC_LIBS := -lmetis -llapack -lblas
SYSLIBS_sparsest_cut := $(SC_LIBS)

# What a layer's code links: its library, then those of the layers under it,
# then their system libraries.  layer_link LAYER gives the libraries,
# layer_sys LAYER the system ones.
layer_chain = $(call uniq_last,$(1) $(call link_layers,$(1)))
layer_link = $(addprefix $(BUILD)/,$(foreach l,$(call layer_chain,$(1)),$(LIB_$(l))))
layer_sys = $(foreach l,$(call layer_chain,$(1)),$(SYSLIBS_$(l)))

# Each binary names its main and its layer.
MAIN_ra_base      := baseline/ra_base
MAIN_ra_opt       := optimized/ra_opt
MAIN_sparsest_cut := sparsest_cut/sparsest_cut
MAIN_torusmodel   := torusmodel/torusmodel
MAIN_ra_calibrate := tools/ra_calibrate/main
MAIN_collbench    := tools/collbench/main
layer_of_main = $(patsubst %/,%,$(dir $(MAIN_$(1))))
$(foreach p,ra_base ra_opt sparsest_cut torusmodel ra_calibrate collbench,$(eval LINK_$(p) := $(call layer_link,$(call layer_of_main,$(p)))) \
    $(eval EXTRA_$(p) := $(call layer_sys,$(call layer_of_main,$(p)))))

# Unit tests (tests/unit/test_NAME.c) link the layer they test, named in
# TLAYER_test_NAME, and the layers under it.
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TLAYER_test_io             := kit
TLAYER_test_torus          := torus
TLAYER_test_shm_ring       := torus
TLAYER_test_coll           := torus/coll
TLAYER_test_reduce         := torus/coll
TLAYER_test_coll_node      := torus/coll
TLAYER_test_multisend      := torus/coll
TLAYER_test_coll_table     := torus/coll
TLAYER_test_flat           := torus/coll
TLAYER_test_dist           := hpcc_ra
TLAYER_test_gen            := hpcc_ra
TLAYER_test_table          := hpcc_ra
TLAYER_test_ceiling        := hpcc_ra
TLAYER_test_options        := hpcc_ra
TLAYER_test_report         := hpcc_ra
TLAYER_test_ropt_sim       := optimized
TLAYER_test_ropt_timed     := optimized
TLAYER_test_ropt_wide      := optimized
TLAYER_test_sparsest_cut   := sparsest_cut
TLAYER_test_sc_shapes      := sparsest_cut
TLAYER_test_networks       := sparsest_cut
TLAYER_test_fabric         := sparsest_cut
TLAYER_test_machines       := torusmodel
TLAYER_test_torusmodel     := torusmodel
TLAYER_test_node_model     := torusmodel
TLAYER_test_hwloc          := torusmodel
TLAYER_test_model_rules    := torusmodel
TOOL_BIN := $(BUILD)/tests/ra_seq

# Fuzz harnesses (tests/fuzz/fuzz_NAME.c): each links the layer of the
# parser it drives (FLAYER_NAME).  `make` builds them against replay.c
# (bin-less replayers that `make test` runs over tests/fuzz/corpus/NAME);
# `make fuzz` builds them with clang's libFuzzer and runs each FUZZ_SECONDS.
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FLAYER_edgelist          := sparsest_cut
FLAYER_metis             := sparsest_cut
FLAYER_params            := torusmodel
FLAYER_mapping           := torus
FLAYER_shape             := torus
FLAYER_network           := sparsest_cut
FLAYER_ibnet             := sparsest_cut
FLAYER_slurm             := sparsest_cut
FLAYER_slurm_yaml        := sparsest_cut
FLAYER_hwloc             := torusmodel
FLAYER_hosts             := torus
FLAYER_opts_ra_base      := baseline
FLAYER_opts_ra_opt       := optimized
FLAYER_opts_sparsest_cut := sparsest_cut
FLAYER_opts_torusmodel   := torusmodel
FLAYER_opts_ra_calibrate := tools/ra_calibrate
FLAYER_opts_collbench    := torus/coll
FLAYER_coll_table        := torus/coll
REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz_replay_%)
FUZZ_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60

PROGS := bin/ra_base bin/ra_opt bin/sparsest_cut bin/torusmodel bin/ra_calibrate bin/collbench
# Man pages, made from each binary's --help (its option spec) by help2man
# at build time, so they cannot drift from the program; without help2man
# the build goes on and `make install` says what it left out.
HELP2MAN := $(shell command -v help2man 2>/dev/null)
MANS := $(PROGS:bin/%=man/man1/%.1)
MAN_NAME_ra_base      := HPCC RandomAccess (GUPS), HPCC's own algorithm over MPI
MAN_NAME_ra_opt       := HPCC RandomAccess (GUPS), software-routed over a virtual torus
MAN_NAME_sparsest_cut := smallest edge expansion of a torus or graph and the GUPS network bound
MAN_NAME_torusmodel   := CPU, network and memory bounds and a prediction of RandomAccess GUPS
MAN_NAME_ra_calibrate := measure this machine's RandomAccess model parameters at P ranks
MAN_NAME_collbench    := torus collectives raced against the MPI library's own
# bin/ binaries are shared by both MPI flavours: relink when the flavour changes.
FLAVOUR := $(BUILD)/flavour

PREFIX ?= /usr/local
# The library's public headers: the layer's own, the collectives' and the kit's under them.
TORUS_HEADERS := torus/torus.h torus/torus_mpi.h torus/torus_sim.h torus/torus_timed.h torus/coll/torus_coll.h \
                 kit/kit_cli.h kit/kit_io.h kit/kit_opt.h kit/kit_mem.h kit/kit_mpi.h kit/kit_agree.h
DESTDIR ?=
# Every path of the install is one shell word whatever PREFIX and DESTDIR
# hold (blanks, quotes): single-quoted, a ' inside written '\''.  torus.pc
# gets the prefix with a backslash before every byte but [A-Za-z0-9/._+=-],
# pkg-config's escaping: its flags come out as shell words.
shq = '$(subst ','\'',$(1))'
IDIR = $(call shq,$(DESTDIR)$(PREFIX))
SCRIPTS := run_scripts/hpcc_submission.sh run_scripts/hpcc_full.sh run_scripts/sweep.sh run_scripts/plot.sh run_scripts/compare.sh run_scripts/common.sh \
           run_scripts/plot_coll.sh

.PHONY: all deps run test run-tests check-layers layers-table clean distclean install fuzz fuzz-bins sanitize-test run-sanitize FORCE
.SECONDEXPANSION:
# Objects reached only through pattern rules are "intermediate" to make,
# which would delete them after linking and rebuild them next time.
.SECONDARY:
all: $(PROGS) $(UNIT_BIN) $(TOOL_BIN) $(REPLAY_BIN)
ifneq ($(HELP2MAN),)
all: $(MANS)
endif

# --version-string: the version alone (ra_opt --version also names the
# build and the MPI library); --help runs before MPI starts, so no launcher.
man/man1/%.1: bin/%
	@mkdir -p man/man1
	$(HELP2MAN) --no-info --version-string=$(VERSION) --name="$(MAN_NAME_$*)" --output=$@.part ./$< && mv -f $@.part $@

# The flavour file is rewritten (new mtime) only when the flavour changed; it
# has a recipe of its own so make re-reads its time before deciding to link.
$(FLAVOUR): FORCE
	@mkdir -p $(BUILD) bin
	@echo "$(MPI) $(SANITIZE) $(CFLAGS) PAPI=$(PAPI)" > $@.new
	@if cmp -s $@.new bin/.flavour; then rm -f $@.new; else mv $@.new $@; cp $@ bin/.flavour; fi
FORCE:

# A file compiles with the include path of its top-level folder's layer,
# or of its own folder where that has one (tools/collbench/: INC_tools_collbench).
layer_of = $(firstword $(subst /, ,$(1)))
folder_of = $(subst /,_,$(patsubst %/,%,$(dir $(1))))
inc_of = $(or $(INC_$(call folder_of,$(1))),$(INC_$(call layer_of,$(1))))
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(call inc_of,$<) -c $< -o $@

# The driver carries the build description; rebuild it when the flavour changes.
$(BUILD)/hpcc_ra/ra_main.o: BASE_CFLAGS += -DHPCC_RA_BUILD='"$(BUILD_INFO)"'
$(BUILD)/hpcc_ra/ra_main.o: $(FLAVOUR)

$(LIBKIT): $(KIT_OBJ)
# the compiled selection table, put into select.c's object by .incbin
$(BUILD)/torus/coll/select.o $(BUILD)/pic/torus/coll/select.o: torus/coll/select.table
$(LIBTORUS): $(TORUS_OBJ)
$(LIBRA): $(HARNESS_OBJ)
$(LIBBASE): $(BASE_OBJ)
$(LIBROPT): $(ROPT_OBJ)
$(LIBSC): $(SC_OBJ)
$(LIBTM): $(TM_OBJ)
$(LIBCB): $(CB_OBJ)
$(LIBCAL): $(CAL_OBJ)
$(BUILD)/%.a:
	@rm -f $@
	ar rcs $@ $^

bin/%: $(BUILD)/$$(MAIN_$$*).o $$(LINK_$$*) $(FLAVOUR)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $< $(LINK_$*) $(EXTRA_$*) $(LDLIBS)

$(BUILD)/tests/ra_seq: $(BUILD)/tests/tools/ra_seq.o $(call layer_link,hpcc_ra)
	$(CC) $(LDFLAGS) -o $@ $< $(call layer_link,hpcc_ra) $(LDLIBS)

# ---- libtorus_pmpi.so (pmpi/): the MPI profiling-interface adapter
# that hands any MPI program the torus collectives through LD_PRELOAD.  The
# torus library and the adapter are compiled position-independent into
# $(BUILD)/pic/ and linked into lib/$(MPI)/libtorus_pmpi.so, one per MPI
# library (each calls its own libmpi's PMPI_ entries; both can sit side by
# side); only MPI_* is exported (pmpi/exports.map).  `make install`
# puts it in $(PREFIX)/lib/hpcc-ra/$(MPI)/.  tests/tools/pmpi_check.c is
# the MPI program tests/suite_pmpi.sh runs with and without it;
# tests/tools/pmpi_overhead.c times what it adds to a call and
# tests/tools/pmpi_imb.c times calls as IMB-MPI1 does
# (run_scripts/bench_adapter.sh, docs/mpi-adapter.md).
# The adapter's .so holds the layers under it (layers.mk: torus/coll, torus, kit).
PIC_TORUS_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(wildcard $(addsuffix /*.c,$(call link_layers,pmpi))))
PIC_LIBTORUS := $(BUILD)/pic/libtorus.a
PMPI_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(wildcard pmpi/*.c))
PMPI_LIB := lib/$(MPI)/libtorus_pmpi.so
PMPI_CHECK := $(BUILD)/tests/pmpi_check
PMPI_OVERHEAD := $(BUILD)/tests/pmpi_overhead
PMPI_TESTS := $(BUILD)/tests/pmpi_sigs $(BUILD)/tests/pmpi_reduce $(BUILD)/tests/pmpi_time $(BUILD)/tests/pmpi_persist \
              $(BUILD)/tests/pmpi_threads $(BUILD)/tests/pmpi_errors $(BUILD)/tests/pmpi_imb $(BUILD)/tests/lib_colls \
              $(BUILD)/tests/pmpi_comms
# tests/tools/pmpi_bare.c: an interposer that only jumps to PMPI_, the floor
# bench_adapter.sh --lib measures the adapter against
PMPI_BARE := $(BUILD)/tests/libpmpi_bare.so
all: $(PMPI_LIB) $(PMPI_CHECK) $(PMPI_OVERHEAD) $(PMPI_TESTS) $(PMPI_BARE)
# Hidden symbols: the version script exports MPI_* only, and with the
# compiler told so it reaches the adapter's own data and functions
# directly, not through the GOT; -fno-plt: each call into libmpi (PMPI_*)
# is one indirect call or jump through the GOT, not a jump to a PLT stub
# that jumps again (the adapter's fast paths end in such a tail call).
PIC_FLAGS := -fvisibility=hidden -fno-plt
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -fPIC $(PIC_FLAGS) $(call inc_of,$<) -c $< -o $@
$(PIC_LIBTORUS): $(PIC_TORUS_OBJ)
# -z defs: every symbol resolved at link time (not under sanitizers, whose
# runtime the program brings)
$(PMPI_LIB): $(PMPI_OBJ) $(PIC_LIBTORUS) pmpi/exports.map $(FLAVOUR)
	@mkdir -p $(dir $@)
	$(CC) -shared $(SAN_FLAGS) $(if $(SANITIZE),,-Wl,-z,defs) -Wl,--version-script=pmpi/exports.map \
	    -o $@ $(PMPI_OBJ) $(PIC_LIBTORUS) -lm
$(PMPI_BARE): tests/tools/pmpi_bare.c $(FLAVOUR)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -fPIC -fno-plt -shared $(SAN_FLAGS) -o $@ $<
$(BUILD)/tests/pmpi_%: $(BUILD)/tests/tools/pmpi_%.o
	$(CC) $(LDFLAGS) -o $@ $< $(LDLIBS)
# ra_base with the harness's test hooks (RA_INJECT_MPI_ERROR,
# RA_PROGRESS_DELAY_S: suite_base), which release binaries do not have:
# the harness compiled again with -DKIT_TEST_HOOKS into $(BUILD)/hooks/
HOOKS_RA_OBJ := $(HARNESS_OBJ:$(BUILD)/%=$(BUILD)/hooks/%)
HOOKS_LIBRA := $(BUILD)/hooks/$(LIB_hpcc_ra)
$(BUILD)/hooks/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -DKIT_TEST_HOOKS $(call inc_of,$<) -c $< -o $@
$(BUILD)/hooks/hpcc_ra/ra_main.o: BASE_CFLAGS += -DHPCC_RA_BUILD='"$(BUILD_INFO)"'
$(BUILD)/hooks/hpcc_ra/ra_main.o: $(FLAVOUR)
$(HOOKS_LIBRA): $(HOOKS_RA_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/tests/ra_base_hooks: $(BUILD)/$(MAIN_ra_base).o $(patsubst $(LIBRA),$(HOOKS_LIBRA),$(LINK_ra_base))
	$(CC) $(LDFLAGS) -o $@ $< $(patsubst $(LIBRA),$(HOOKS_LIBRA),$(LINK_ra_base)) $(EXTRA_ra_base) $(LDLIBS)
all: $(BUILD)/tests/ra_base_hooks

# docs/settings.md's table, printed from the declarations (kit/settings.c):
# `make settings-doc` rewrites it, suite_docs holds the page to it
$(BUILD)/tests/settings_table: $(BUILD)/tests/tools/settings_table.o $(call layer_link,kit)
	$(CC) $(LDFLAGS) -o $@ $< $(call layer_link,kit) $(LDLIBS)
all: $(BUILD)/tests/settings_table
settings-doc: $(BUILD)/tests/settings_table
	@awk -v tbl="$$($(BUILD)/tests/settings_table)" '/^<!-- settings table: begin/ { print; print tbl; skip = 1; next } \
	    /^<!-- settings table: end/ { skip = 0 } !skip { print }' docs/settings.md >docs/settings.md.part && \
	    mv -f docs/settings.md.part docs/settings.md && echo "docs/settings.md: the table of kit/settings.c"
.PHONY: settings-doc

# the torus library's own collectives, under the adapter (suite_pmpi)
$(BUILD)/tests/lib_colls: $(BUILD)/tests/tools/lib_colls.o $(call layer_link,torus/coll)
	$(CC) $(LDFLAGS) -o $@ $< $(call layer_link,torus/coll) $(LDLIBS)
install: install-pmpi
install-pmpi: $(PMPI_LIB)
	install -d $(IDIR)/lib/hpcc-ra/$(MPI)
	install -m 755 $(PMPI_LIB) $(IDIR)/lib/hpcc-ra/$(MPI)/
	@echo "installed "$(IDIR)"/lib/hpcc-ra/$(MPI)/libtorus_pmpi.so"
.PHONY: install-pmpi

# ---- HPC Challenge 1.5 itself (hpcc/, docs/hpcc-submission.md): `make hpcc
# HPCC_SRC=...` (a release tarball, an unpacked tree or a git checkout; none:
# Debian's source package through apt-get source) builds bin/hpcc, HPCC as
# HPCC builds it, and bin/hpcc-opt, the same with the kit's routed algorithm
# as its MPIRandomAccess (hpcc/ra_hpcc.c says how it is swapped in).  HPCC's
# files are compiled where they lie into $(BUILD)/hpcc/, never edited, with
# the list of files and the flags of HPCC's own build (its Makefile.hpcc and
# Make.Linux_PII_CBLAS: -O3, CBLAS, HPL_dlamch and noopt.c unoptimized), its
# removed MPI-1 calls mapped by hpcc/mpi1_compat.h, the BLAS of the kit's
# packages (-lblas: OpenBLAS).  HPCC's code is old C: its warnings are its own.
HPCC_SRC ?=
HPCC_SRCDIR := build/hpcc-src
HPCC_B := $(BUILD)/hpcc
HPCC_PROGS := bin/hpcc bin/hpcc-opt
.PHONY: hpcc hpcc-bins
hpcc: deps
	@tree=$$(hpcc/hpcc_source.sh $(call shq,$(HPCC_SRC)) $(HPCC_SRCDIR)) && \
	    $(MAKE) --no-print-directory hpcc-bins HPCC_TREE="$$tree"
ifneq ($(HPCC_TREE),)
HPCC_MK := $(HPCC_TREE)/hpl/lib/arch/build/Makefile.hpcc
# Makefile.hpcc names objects from hpl/lib/arch/build: ../../../ is hpl/, ../../../../ the top
hpcc_rel = sed -e 's,^\.\./\.\./\.\./\.\./,,' -e 's,^\.\./\.\./\.\./,hpl/,'
HPCC_REL := $(shell sed -n 's/^OBJS[0-9]* *= *//p' '$(HPCC_MK)' | tr -s ' ' '\n' | $(hpcc_rel))
HPCC_NOOPT := $(shell grep -B1 -F '$$(CCNOOPT)' '$(HPCC_MK)' | sed -n 's/ *:.*//p' | $(hpcc_rel))
HPCC_OBJ := $(HPCC_REL:%=$(HPCC_B)/base/%)
# hpcc-opt: the two drivers compiled so that their call of the update routine
# goes through the symbol, and that routine made weak; HPCC's empty
# external-init hook left out; the kit's side linked in.
HPCC_SWAP := RandomAccess/MPIRandomAccess.o RandomAccess/MPIRandomAccessLCG.o
HPCC_WEAK := Power2NodesMPIRandomAccessUpdate AnyNodesMPIRandomAccessUpdate \
             HPCC_Power2NodesMPIRandomAccessUpdate_LCG HPCC_AnyNodesMPIRandomAccessUpdate_LCG
HPCC_OPT_OBJ := $(filter-out $(addprefix $(HPCC_B)/base/,$(HPCC_SWAP) src/extinit.o),$(HPCC_OBJ)) \
                $(HPCC_SWAP:%=$(HPCC_B)/swap/%) $(HPCC_B)/ra_hpcc.o $(BUILD)/hpcc/ra_route.o
HPCC_FLAGS := -DHPL_CALL_CBLAS -I$(HPCC_TREE)/include -I$(HPCC_TREE)/hpl/include -I$(HPCC_TREE)/RandomAccess \
              -include hpcc/mpi1_compat.h -w $(SAN_FLAGS)
HPCC_OPTFLAGS := -fomit-frame-pointer -O3 -funroll-loops
$(addprefix $(HPCC_B)/base/,$(HPCC_NOOPT)): HPCC_OPTFLAGS :=
$(HPCC_B)/base/%.o: $(HPCC_TREE)/%.c hpcc/mpi1_compat.h $(FLAVOUR)
	@mkdir -p $(dir $@)
	@$(CC) $(HPCC_FLAGS) $(HPCC_OPTFLAGS) -c $< -o $@
$(HPCC_B)/swap/%.o: $(HPCC_TREE)/%.c hpcc/mpi1_compat.h $(FLAVOUR)
	@mkdir -p $(dir $@)
	$(CC) $(HPCC_FLAGS) $(HPCC_OPTFLAGS) -fPIC -fsemantic-interposition -c $< -o $@.tmp
	objcopy $(HPCC_WEAK:%=--weaken-symbol=%) $@.tmp $@ && rm -f $@.tmp
# our side of HPCC's interface: HPCC's headers as system headers (their
# warnings are not ours), the kit's strict flags for our code
$(HPCC_B)/ra_hpcc.o: hpcc/ra_hpcc.c hpcc/hpcc_ra.h $(FLAVOUR)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -Ihpcc -DHPL_CALL_CBLAS -isystem $(HPCC_TREE)/include -isystem $(HPCC_TREE)/hpl/include \
	    -isystem $(HPCC_TREE)/RandomAccess -c $< -o $@
bin/hpcc: $(HPCC_OBJ) $(FLAVOUR)
	@echo "link $@: $(words $(HPCC_OBJ)) HPCC objects, -lblas -lm"
	@$(CC) $(LDFLAGS) -o $@ $(HPCC_OBJ) -lblas -lm
bin/hpcc-opt: $(HPCC_OPT_OBJ) $(LINK_ra_opt) $(FLAVOUR)
	@echo "link $@: $(words $(HPCC_OPT_OBJ)) HPCC objects with hpcc/'s two and $(notdir $(LINK_ra_opt)), -lblas $(LDLIBS)"
	@$(CC) $(LDFLAGS) -o $@ $(HPCC_OPT_OBJ) $(LINK_ra_opt) -lblas $(LDLIBS)
hpcc-bins: $(HPCC_PROGS)
	@echo "built bin/hpcc (HPCC 1.5) and bin/hpcc-opt (HPCC 1.5 with ra_opt as its MPIRandomAccess) from $(HPCC_TREE), MPI=$(MPI)"
endif

$(BUILD)/tests/test_%: $(BUILD)/tests/unit/test_%.o $$(call layer_link,$$(TLAYER_test_$$*))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(or $(call layer_link,$(TLAYER_test_$*)),$(error tests/unit/test_$*.c: name the layer it tests in TLAYER_test_$*)) \
	    $(call layer_sys,$(TLAYER_test_$*)) $(LDLIBS)

$(BUILD)/tests/fuzz_replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $$(call layer_link,$$(FLAYER_$$*))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/tests/fuzz/replay.o $(or $(call layer_link,$(FLAYER_$*)),$(error tests/fuzz/fuzz_$*.c: name the layer it drives in FLAYER_$*)) \
	    $(call layer_sys,$(FLAYER_$*)) $(LDLIBS)

$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $$(call layer_link,$$(FLAYER_$$*))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(call layer_link,$(FLAYER_$*)) $(call layer_sys,$(FLAYER_$*)) $(LDLIBS)

fuzz-bins: $(FUZZ_BIN)

# make fuzz FUZZ_SECONDS=N: every harness for N seconds under ASan+UBSan,
# starting from its kept corpus; new inputs go to build/fuzz-corpus (not
# kept), a crash to build/fuzz-artifacts and fails the target.  Prints the
# executions per harness and in total (tests/fuzz/run.sh).
fuzz: deps
	@MPI=$(MPI) sh tests/deps.sh $(PKGS_FUZZ) --
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-bins
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh build/fuzz-$(MPI)/fuzz $(FUZZ_NAMES)

# The sanitizer pass (CI): the SANITIZE=address,undefined build, then its
# unit tests, fuzz corpus and a small MPI matrix with leak checking
# (tests/sanitize.sh).  bin/ then holds the sanitized binaries.
sanitize-test: deps
	@$(MAKE) --no-print-directory SANITIZE=address,undefined all
	@$(MAKE) --no-print-directory SANITIZE=address,undefined run-sanitize

run-sanitize:
	@MPI=$(MPI) MPIRUN="$(MPIRUN)" BUILD=$(BUILD) bash tests/sanitize.sh

# Fails when a file includes a header of a layer above its own, or an
# object calls into a layer its layer does not link, or the code under the
# adapter calls an MPI_ name the adapter defines (tests/check_layers.sh).
check-layers:
	@bash tests/check_layers.sh . $(BUILD)
# The table as the Makefile reads it, one line per layer:
# folder|what it may include|the layers it links, in link order.
layers-table:
	@$(foreach l,$(LAYERS),echo '$(l)|$(call uniq_last,$(call inc_grants,$(l)))|$(call layer_chain,$(l))';)

deps:
	@MPI=$(MPI) sh tests/deps.sh $(PKGS) -- $(PKGS_OPTIONAL)

# After deps, a fresh make works out PAPI (and so BUILD) again: libpapi-dev
# may have just been installed.
run: deps
	@$(MAKE) --no-print-directory all
	$(MPIRUN) $(MPIRUN_FLAGS) -n $(NPROC) bin/ra_opt --log2-table 27

test: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory run-tests

run-tests:
	@MPI=$(MPI) MPIRUN="$(MPIRUN)" BUILD=$(BUILD) PAPI=$(PAPI) bash tests/run_tests.sh

# Binaries, the torus library and its headers, and the run scripts (under
# share/hpcc-ra, with hpcc-ra-* links in bin/ that find the binaries beside them).
install: all
	install -d $(IDIR)/bin $(IDIR)/lib $(IDIR)/include \
	    $(IDIR)/lib/pkgconfig $(IDIR)/share/hpcc-ra/run_scripts/slurm
	install -m 755 $(PROGS) $(IDIR)/bin/
	for b in $(HPCC_PROGS); do if [ -x "$$b" ]; then install -m 755 "$$b" $(IDIR)/bin/ || exit 3; fi; done
	install -m 644 $(LIBTORUS) $(LIBKIT) $(IDIR)/lib/
	install -m 644 $(TORUS_HEADERS) $(IDIR)/include/
	PC_PREFIX=$(call shq,$(PREFIX)) awk 'BEGIN { p = ENVIRON["PC_PREFIX"]; gsub(/[^A-Za-z0-9\/._+=-]/, "\\\\&", p) } \
	    { i = index($$0, "@PREFIX@"); if (i) $$0 = substr($$0, 1, i - 1) p substr($$0, i + 8); sub(/@VERSION@/, "$(VERSION)"); print }' \
	    torus/torus.pc.in >$(IDIR)/lib/pkgconfig/torus.pc
	install -m 755 $(SCRIPTS) $(IDIR)/share/hpcc-ra/run_scripts/
	install -m 644 run_scripts/slurm/*.sbatch $(IDIR)/share/hpcc-ra/run_scripts/slurm/
	echo "$(MPI)" > $(IDIR)/share/hpcc-ra/mpi_flavour
	ln -sf ../share/hpcc-ra/run_scripts/hpcc_submission.sh $(IDIR)/bin/hpcc-ra-submission
	ln -sf ../share/hpcc-ra/run_scripts/sweep.sh $(IDIR)/bin/hpcc-ra-sweep
	ln -sf ../share/hpcc-ra/run_scripts/plot.sh $(IDIR)/bin/hpcc-ra-plot
ifneq ($(HELP2MAN),)
	install -d $(IDIR)/share/man/man1
	install -m 644 $(MANS) $(IDIR)/share/man/man1/
	@echo "installed into "$(IDIR)": bin/ ($(notdir $(PROGS)) hpcc-ra-submission hpcc-ra-sweep hpcc-ra-plot), share/man/man1 (their man pages), lib/libtorus.a lib/libkit.a, lib/pkgconfig/torus.pc, include/torus*.h kit*.h, share/hpcc-ra/run_scripts"
else
	@echo "installed into "$(IDIR)": bin/ ($(notdir $(PROGS)) hpcc-ra-submission hpcc-ra-sweep hpcc-ra-plot), lib/libtorus.a lib/libkit.a, lib/pkgconfig/torus.pc, include/torus*.h kit*.h, share/hpcc-ra/run_scripts"
	@echo "install: no man pages: help2man is not installed (apt-get install help2man, then make install again)"
endif

clean:
	rm -rf build bin lib man

distclean: clean

# Open MPI refuses root and oversubscription unless told; both are normal here.
ifeq ($(MPI),openmpi)
MPIRUN_FLAGS ?= --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root)
endif

-include $(shell find build -name '*.d' 2>/dev/null)
