/* cs_dtoa.h — the shortest decimal digits that read back to a double, from
 * libdouble-conversion (Google's, the code inside V8 and Chromium), behind
 * one C function: dtoa.cc. cs_format_double (cs_parse.c) lays them out. */
#ifndef CS_DTOA_H
#define CS_DTOA_H

#ifdef __cplusplus
extern "C" {
#endif

/* v finite and > 0. digits gets the shortest digit string d1 d2 ... dn
 * (no leading or trailing zeros, NUL-terminated; 18 bytes suffice) such
 * that 0.d1...dn × 10^point reads back to v, the closest such string to v
 * when several have n digits. Returns n. */
int cs_dtoa_shortest(double v, char digits[18], int *point);

#ifdef __cplusplus
}
#endif

#endif
