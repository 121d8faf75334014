/* nn_state.h — the network commands' state in the interpreter (slot
 * CS_EXT_NN): the network, the loaded data and the pipeline's stages.
 * Kept by nn_state.c; shared by cmd_train.c, cmd_quant.c, cmd_nnio.c,
 * nn_report.c, train_watch.c and cmd_session.c (sessions/ only). */
#ifndef CS_NN_STATE_H
#define CS_NN_STATE_H

#include "cs_cmdline.h"
#include "cs_interp.h"
#include "cs_nn.h"
#include "cs_result.h"

#define NN_MAX_STAGES 256
/* exclude= of train and quantize: its help, the same in both */
#define NN_EXCLUDE_HELP                                                                        \
    "layers left full precision: default, the paper's (the first convolution and the last "    \
    "fc: a cnn's conv1 and fc2, resnet20's conv1 and fc; the mlp has no convolution: its "    \
    "last fc), none, first (the "                                                             \
    "first layer only), last (the last layer only)"
/* device= of train and load model (auto: cs_nn_device_resolve) */
#define NN_DEVICE_CHOICES "cpu|cuda|auto"

/* One row of nnreport. reg and lambda: those the network was last trained
 * with (whatever the stage). Accuracies < 0 and NaN losses: not measured. */
typedef struct nn_stage {
    char stage[16], label[48], model[16], reg[32];
    double lambda;
    int epochs;
    double train_acc, train_loss;     /* on the training batches of the last epoch */
    double test_acc, test_loss;       /* on the test images */
    double seconds;
    int partial;
    char data[256];         /* the data set as typed (fashion-mnist, a path), "" unknown */
    char data_hash[16];     /* its short hash (nn_data_hash) */
    unsigned long long seed;   /* the session's seed when the stage ran */
} nn_stage;

/* What a checkpoint was trained with, for load model (NN_SAVED remembered). */
#define NN_SAVED 8
typedef struct nn_saved {
    char path[4096], reg[32];
    double lambda;
} nn_saved;

typedef struct nn_state {
    cs_nn *net;
    cs_nn_data train, test;
    char train_dir[4096], test_dir[4096];
    /* the data sets as typed and their short hashes (12 hex digits of a
     * SHA-256 over the digests of the folder's IDX files) */
    char train_name[4096], test_name[4096], train_hash[16], test_hash[16];
    char data_set[4096];    /* `set data PATH` as typed ("": none, fashion-mnist) */
    /* what the network was last trained on, and with which seed ("": not
     * trained here: a loaded file) */
    char net_data[4096], net_hash[16];
    unsigned long long net_seed;
    size_t train_limit;
    cs_nn_layout train_layout, test_layout;   /* layout= an .npz was read with */
    int have_train, have_test;
    cs_nn_exclude excl;     /* of the last training/quantization */
    char net_reg[32];       /* the regularizer and weight the network was last trained
                               with ("n/a" after loading a file not saved here) */
    double net_lambda;
    nn_saved saved[NN_SAVED];
    size_t nsaved;
    nn_stage st[NN_MAX_STAGES];
    size_t nst;
    /* for front ends (cs_train_view.h): the layer/row `hist` chose last,
     * when the network last changed, and scratch for its weights */
    char sel_layer[64];
    long sel_row;
    long seq;
    float *view_w;
    size_t view_cap;
    char view_model[128];
    long runs;              /* train and finetune runs watched (train_watch.c) */
} nn_state;

/* The state, made on first use (NULL only when out of memory). */
nn_state *nn_state_get(cs_interp *in, cs_err *err);
/* The state of a session that has a network (commands after train/load);
 * else an error saying how to get one. */
int nn_need_net(cs_interp *in, nn_state **out, cs_err *err);
/* A new row of nnreport (the oldest is dropped when NN_MAX_STAGES are
 * kept): the network's model, reg and lambda, the data it was trained on
 * and the session's seed, nothing measured yet; the caller fills in what
 * the stage measured. */
nn_stage *nn_add_stage(cs_interp *in, nn_state *s, const char *stage, const char *label);
/* layout= of the data commands: its help, the same in each */
#define NN_LAYOUT_HELP                                                                         \
    "an .npz data set's 4-dimensional images: nhwc (N×H×W×C, NumPy's and Keras's) or nchw "    \
    "(N×C×H×W, PyTorch's); N×H×W needs none"
/* The data a command uses, as typed: its data=, else `set data`, else
 * fashion-mnist. */
const char *nn_data_name(cs_interp *in, const cs_cmdline *cl);
/* `set data PATH` (commands.c): the data of later commands without data=
 * (fashion-mnist: the packaged set again); the folder must hold a split. */
int nn_set_data(cs_interp *in, const char *value, cs_result *res, cs_err *err);
/* The data set's name and short hash into a command's result (data=,
 * data_hash=). */
void nn_put_data(cs_result *res, const char *name, const char *hash);
/* exclude=default|none|last|first, `def` when not given. */
int nn_get_exclude(cs_interp *in, const cs_cmdline *cl, cs_nn_exclude def, cs_nn_exclude *out,
                   cs_err *err);
/* The word of exclude= for ex ("default", "none", ...). */
const char *nn_exclude_name(cs_nn_exclude ex);
/* The training set loaded (data=, at most `limit` images; 0: all). */
int nn_ensure_train(cs_interp *in, const cs_cmdline *cl, nn_state *s, size_t limit,
                    cs_err *err);
/* The test set loaded (data=, else the training data's folder). */
int nn_ensure_test(cs_interp *in, const cs_cmdline *cl, nn_state *s, cs_err *err);
/* Test accuracy and mean loss on the first `limit` test images (0: all),
 * loading the test set (data=, else the training data's folder) as needed. */
int nn_evaluate_into(cs_interp *in, const cs_cmdline *cl, nn_state *s, long limit,
                     double *acc, double *loss, cs_err *err);
/* nnreport (nn_report.c): the stages as a table, a CSV and JSON objects. */
#define NN_REPORT_CSV_HEADER                                                                   \
    "stage,label,model,reg,lambda,epochs,train_accuracy,train_loss,test_accuracy,test_loss,"   \
    "seconds,partial,data,data_hash,seed"
int nn_cmd_report(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
/* `save model FILE [force=on]` (cmd_session.c parses the command): the
 * network to FILE, and what it was trained with remembered for load model. */
int cs_train_save_model(cs_interp *in, const char *path, int force, cs_result *res,
                        cs_err *err);

#endif
