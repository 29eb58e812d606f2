/* test_report.c - the HPCC Summary block has every key, unset ones are -1. */
#include "../test.h"
#include "ra_report.h"

#include <stdlib.h>

int main(void)
{
    ra_result r[2];
    memset(r, 0, sizeof r);
    r[0].test = RA_TEST_MPI;
    r[0].gen = RA_GEN_LFSR;
    r[0].algorithm = "baseline";
    r[0].ranks = 4;
    r[0].table_words = 1 << 20;
    r[0].updates = 4 << 20;
    r[0].gups = 0.5;
    r[0].time_s = 2.0;
    r[0].errors = 0;
    r[0].time_bound = 60;
    r[1] = r[0];
    r[1].test = RA_TEST_STAR;
    r[1].gen = RA_GEN_LCG;
    r[1].gups = 0.25;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ra_report_hpcc_summary(f, r, 2, 4, 1e-9, 1);
    fclose(f);
    const char *keys[] = {"MPIRandomAccess_LCG_N=-1", "MPIRandomAccess_LCG_time=-1",
                          "MPIRandomAccess_LCG_CheckTime=-1", "MPIRandomAccess_LCG_Errors=-1",
                          "MPIRandomAccess_LCG_ErrorsFraction=-1", "MPIRandomAccess_LCG_ExeUpdates=-1",
                          "MPIRandomAccess_LCG_GUPs=-1", "MPIRandomAccess_LCG_TimeBound=-1",
                          "MPIRandomAccess_LCG_Algorithm=-1", "MPIRandomAccess_N=1048576",
                          "MPIRandomAccess_time=2\n", "MPIRandomAccess_Errors=0\n",
                          "MPIRandomAccess_ErrorsFraction=0\n", "MPIRandomAccess_ExeUpdates=4194304",
                          "MPIRandomAccess_GUPs=0.5\n", "MPIRandomAccess_TimeBound=60\n",
                          "MPIRandomAccess_Algorithm=0\n", "RandomAccess_LCG_N=1048576",
                          "StarRandomAccess_LCG_GUPs=0.25", "SingleRandomAccess_LCG_GUPs=-1",
                          "RandomAccess_N=-1", "StarRandomAccess_GUPs=-1", "SingleRandomAccess_GUPs=-1",
                          "CommWorldProcs=4", "Success=1", "Begin of Summary section.",
                          "End of Summary section."};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        ASSERT_STR_CONTAINS(buf, keys[i]);
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    ra_report_hpcc_section(f, &r[0]);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "Begin of MPIRandomAccess section.");
    ASSERT_STR_CONTAINS(buf, "Found 0 errors in 1048576 locations (passed).");
    ASSERT_STR_CONTAINS(buf, "0.500000000 Billion(10^9) Updates    per second [GUP/s]");
    ASSERT_STR_CONTAINS(buf, "End of MPIRandomAccess section.");
    free(buf);
    TEST_MAIN_END("test_report");
}
