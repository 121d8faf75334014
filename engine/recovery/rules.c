/* rules.c — stop-rule counterfactuals (cs_rules.h). */
#include "cs_rules.h"

#include <math.h>
#include <stdio.h>

#include "solver_internal.h"

void cs_rules_default(cs_rule out[CS_RULES_DEFAULT])
{
    static const cs_stop tol_rules[] = {CS_STOP_RESIDUAL, CS_STOP_NORMALIZED, CS_STOP_RATIO,
                                        CS_STOP_HYBRID};
    size_t k = 0;
    out[k++] = (cs_rule){CS_STOP_ORACLE, 0};
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < 4; i++)
            out[k++] = (cs_rule){tol_rules[i], t ? 1e-8 : 1e-5};
    out[k++] = (cs_rule){CS_STOP_MAXIT, 0};
}

void cs_rule_label(const cs_rule *r, char *buf, size_t len)
{
    if (r->stop == CS_STOP_ORACLE || r->stop == CS_STOP_MAXIT)
        snprintf(buf, len, "%s", cs_stop_name(r->stop));
    else
        snprintf(buf, len, "%s %g", cs_stop_name(r->stop), r->tol);
}

/* What the solver would return now, judged as at the end of a start. */
static void judge_now(cs_solver *s, cs_rule_result *r)
{
    const double *v = s->algo == CS_ALGO_DR ? cs_dr_x(s->dr) : cs_fista_best(s->fista);
    cs_solve_result res;
    r->success = solver_judge(s, v, &res);
    r->rel_err = res.rel_err;
    r->orth_err = res.orth_err;
}

int cs_solver_rules(cs_solver *replay, const cs_rule *rules, size_t n, cs_rule_result *out,
                    cs_err *err)
{
    cs_solver *s = replay;
    if (!s->o.trace || s->o.stop != CS_STOP_MAXIT || s->start != 0)
        return cs_fail(err, CS_EINVAL, "rules: the replay must be a fresh, traced solver "
                       "with stop=maxit");
    size_t pending = n;
    for (size_t i = 0; i < n; i++)
        out[i] = (cs_rule_result){.rule = rules[i], .iter = 0, .rel_err = NAN, .orth_err = NAN};
    /* until the first start ends (or every rule has fired) */
    while (pending && !(s->start >= 1 && !s->in_start)) {
        long done = 0;
        int rc = cs_solver_step(s, 1, &done, err);
        if (rc)
            return rc;
        if ((s->iters & 255) == 0 && cs_cancelled(s->o.cancel))
            return cs_fail(err, CS_ECANCEL, "interrupted");
        if (done == 0)
            break;
        const cs_trace_rec *t = &s->trace[s->ntrace - 1];
        int ended = !s->in_start;
        double max_resid = cs_solver_max_residual(s);
        double eps = 1e-8;   /* FISTA's eps_r (default) and Douglas–Rachford's */
        for (size_t i = 0; i < n; i++) {
            if (out[i].iter)
                continue;
            const cs_rule *r = &rules[i];
            int fires = r->stop == CS_STOP_MAXIT
                            ? t->iter >= s->maxit
                            : cs_stop_fires(r->stop, t->hit, t->residual, max_resid,
                                            t->norm_residual, r->tol, eps);
            if (!fires && !ended)
                continue;
            out[i].iter = t->iter;
            out[i].fired = fires;
            judge_now(s, &out[i]);
            pending--;
        }
    }
    return CS_OK;
}
