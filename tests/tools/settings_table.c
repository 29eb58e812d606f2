/*
 * settings_table.c - prints the kit's settings (kit/settings.c) as the
 * markdown table docs/settings.md holds between its markers; `make
 * settings-doc` writes it there and tests/suite_docs.sh fails when the page
 * and the declarations differ.
 */
#include "kit_settings.h"

int main(void)
{
    kit_settings_table(stdout);
    return ferror(stdout) ? 3 : 0;
}
