# layers.mk - the layers of the house, bottom to top, and what each may use.
# The one table: the Makefile derives every include path and link line
# from it, and tests/check_layers.sh (make check-layers) holds every
# #include and every object's MPI and library references to it.
# docs/architecture.md draws it.
#
# LAYERS lists the folders bottom to top.  USES_<folder> names the layers
# directly below it that the folder may include and link; a layer may also
# use everything those use.  An entry folder/header.h grants that one
# header only (its folder's library is still linked, with what it uses).
# LIB_<folder> is the library its files (but a program's main) go into;
# torus/coll's are in libtorus.a with the library's other files.
LAYERS := kit torus torus/coll pmpi hpcc_ra baseline optimized hpcc \
          sparsest_cut torusmodel tools tools/collbench tools/ra_calibrate tests

USES_kit                :=
USES_torus              := kit
USES_torus/coll         := torus
USES_pmpi               := torus/coll
USES_hpcc_ra            := torus
USES_baseline           := hpcc_ra
USES_optimized          := hpcc_ra
USES_hpcc               := optimized
USES_sparsest_cut       := torus
USES_torusmodel         := sparsest_cut optimized/ropt_timed.h
USES_tools              := torusmodel baseline optimized torus/coll
USES_tools/collbench    := torus/coll
USES_tools/ra_calibrate := torusmodel baseline optimized
USES_tests              := tools tools/collbench tools/ra_calibrate

LIB_kit                := libkit.a
LIB_torus              := libtorus.a
LIB_hpcc_ra            := libhpcc_ra.a
LIB_baseline           := libbase.a
LIB_optimized          := libropt.a
LIB_sparsest_cut       := libsparsest.a
LIB_torusmodel         := libtorusmodel.a
LIB_tools/collbench    := libcollbench.a
LIB_tools/ra_calibrate := libra_calibrate.a
