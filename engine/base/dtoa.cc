// dtoa.cc — cs_dtoa_shortest (cs_dtoa.h): libdouble-conversion's shortest
// mode (Grisu3, with its exact bignum fallback), for C callers.
#include "cs_dtoa.h"

#include <double-conversion/double-to-string.h>

extern "C" int cs_dtoa_shortest(double v, char digits[18], int *point)
{
    using double_conversion::DoubleToStringConverter;
    bool negative = false;
    int length = 0;
    DoubleToStringConverter::DoubleToAscii(v, DoubleToStringConverter::SHORTEST, 0, digits,
                                           DoubleToStringConverter::kBase10MaximalLength + 1,
                                           &negative, &length, point);
    return length;
}
