/*
 * ra_base.c - bin/ra_base: the HPCC harness (hpcc_ra/) running the classic
 * MPIRandomAccess algorithm of base_algo.c.
 */
#include "base_algo.h"
#include "ra.h"

int main(int argc, char **argv)
{
    return ra_main(argc, argv, &ra_base_algorithm);
}
