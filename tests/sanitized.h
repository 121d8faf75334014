/* sanitized.h — SANITIZED is 1 in the ASan/UBSan build (gcc defines
 * __SANITIZE_ADDRESS__, clang answers __has_feature), where the end-to-end
 * suites run a smaller version of their work (tests/suites.txt). */
#ifndef CS_TEST_SANITIZED_H
#define CS_TEST_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#endif
