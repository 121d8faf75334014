/* cs_clock.h — the one clock: monotonic seconds, for durations only. */
#ifndef CS_CLOCK_H
#define CS_CLOCK_H

double cs_now(void);

#endif
