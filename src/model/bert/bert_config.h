/* bert_config.h: a BERT checkpoint's config.json (bert.h's sizes):
 * num_hidden_layers, num_attention_heads, hidden_size and vocab_size
 * required; intermediate_size (3072), max_position_embeddings (512),
 * type_vocab_size (2) and layer_norm_eps (1e-12) with BertConfig's
 * defaults; hidden_act only "gelu" (erf GELU) and position_embedding_type
 * only "absolute", any other value refused naming it; is_decoder and
 * add_cross_attention refused. */
#ifndef MHA_BERT_CONFIG_H
#define MHA_BERT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* The key of config.json that gives the positions, as messages name it. */
#define BERT_POSITIONS_KEY "max_position_embeddings"

typedef struct {
    size_t n_layer;     /* num_hidden_layers */
    size_t n_head;      /* num_attention_heads */
    size_t d;           /* hidden_size */
    size_t n_inner;     /* intermediate_size */
    size_t n_positions; /* max_position_embeddings */
    size_t n_types;     /* type_vocab_size */
    size_t vocab_size;
    float eps; /* layer_norm_eps */
} bert_config;

/* Reads and checks the file at path. */
int bert_config_read(bert_config *c, const char *path, mx_error *err);

#endif
