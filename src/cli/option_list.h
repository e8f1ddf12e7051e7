/* option_list.h: every command-line option, one row each, in --help's
 * order (jq's opcode_list.h, git's OPT_* rows). option_table.c includes it
 * for the ids, getopt_long's table, the short options and --help; to add an
 * option, add its row here, then its case in options.c's parse_one.
 *
 *   OPTION(id, long name, short letter or 0,
 *          the value's name in --help, or NULL for an option without one,
 *          --help section, place in getopt_long's table, help text)
 *
 * The rows are grouped by section. The place in getopt_long's table is
 * the order the options were added: a shortened name that fits several
 * lists them in it, and a mistyped one is guessed in it (option_guess.c);
 * a new option takes the next number, and option_table.c checks that
 * every place is taken once. No include guard: each use defines OPTION
 * and includes the list.
 *
 * The help text is one message per option, translated whole. --help
 * prints "  --name VALUE" and the text from column 21; the lines after
 * the first are indented to that column. */

/* clang-format off */
OPTION(D_MODEL, "d-model", 0, "N", MODEL, 0,
       /* TRANSLATORS: the help of an option in --help, from column 21
        * to at most 80 (the lines after the first are indented to
        * column 21); option names and values (N, FILE) stay English. */
       N_("embedding width d_in                 (default 3)"))
OPTION(D_OUT, "d-out", 0, "N", MODEL, 1,
       N_("attention width, split over heads    (default 4)"))
OPTION(HEADS, "heads", 0, "N", MODEL, 2,
       N_("number of heads; must divide d_out   (default 2)"))
OPTION(SEED, "seed", 0, "N", MODEL, 3,
       N_("as torch.manual_seed(N)              (default 42)"))
OPTION(NO_CAUSAL, "no-causal", 0, NULL, MODEL, 4,
       N_("let tokens see later tokens too  (default causal)"))
OPTION(NO_SCALE, "no-scale", 0, NULL, MODEL, 5,
       N_("no division by sqrt(head_dim)    (default scaled)"))
OPTION(QKV_BIAS, "qkv-bias", 0, NULL, MODEL, 6,
       N_("biases in W_query, W_key, W_value  (default none)"))
OPTION(VARIANT, "variant", 0, "LIST", MODEL, 7,
       N_("modules to run, comma-separated: single, wrapper,\n"
          "fused, block     (default single,wrapper,fused)"))
OPTION(DRAW, "draw", 0, "ORDER", MODEL, 43,
       N_("input and variants, comma-separated, drawn in\n"
          "this order from one seed, as a notebook builds\n"
          "them (default: each variant from the seed, input\n"
          "first)"))
OPTION(DROPOUT, "dropout", 0, "P", MODEL, 44,
       N_("the block's nn.Dropout(P) on the attention and\n"
          "feed-forward outputs, training mode  (default 0)"))
OPTION(ATTN_DROPOUT, "attn-dropout", 0, "P", MODEL, 45,
       N_("dropout P on the attention weights of single,\n"
          "wrapper and fused, training mode     (default 0)"))
OPTION(FF, "ff", 0, "N", MODEL, 28,
       N_("the block's feed-forward width (default 4 x d_model)"))
OPTION(KV, "kv", 0, "SENTENCE", MODEL, 27,
       N_("cross-attention: keys and values from SENTENCE,\n"
          "no causal mask                    (default none)"))
OPTION(TOKENS, "tokens", 0, "HOW", MODEL, 29,
       N_("words, or chars: a token per character (default words)"))
OPTION(LOWER, "lower", 0, NULL, MODEL, 60,
       N_("lower-case every word: 'O' and 'o' are one word\n"
          "                                    (default as written)"))
OPTION(PUNCT, "punct", 0, "HOW", MODEL, 61,
       N_("punctuation at a word's ends: keep, split (a token\n"
          "of its own) or drop                 (default keep)"))
OPTION(UNK, "unk", 0, NULL, MODEL, 62,
       N_("a trained run reads words outside its vocabulary\n"
          "as the word <unk>, which it learns (default error)"))
OPTION(POSITIONS, "positions", 0, NULL, MODEL, 57,
       N_("learned positions nn.Embedding(context, d_model)\n"
          "added to the embeddings, as GPT     (default none)"))
OPTION(TRAIN, "train", 0, "N", MODEL, 54,
       N_("train each variant N steps to predict the next\n"
          "word, then show it (0 to 1000000)   (default none)"))
OPTION(LR, "lr", 0, "RATE", MODEL, 55,
       N_("the learning rate  (default 0.01 with adam, 0.1\n"
          "with sgd)"))
OPTION(OPTIMIZER, "optimizer", 0, "NAME", MODEL, 56,
       N_("sgd or adam, torch.optim's defaults (default adam)"))
OPTION(CORPUS, "corpus", 0, "FILE", MODEL, 58,
       N_("with --train, train on the sentences of FILE's\n"
          "--column NAME, one per step, cycling (default the\n"
          "sentence)"))
OPTION(GRAD, "grad", 0, NULL, MODEL, 59,
       N_("with --train, the gradients at the final\n"
          "parameters: <name>.grad tables      (default none)"))
OPTION(QKV_ORDER, "qkv-order", 0, "ORDER", MODEL, 63,
       N_("with --train, the order the class's forward computes\n"
          "its projections: kqv (keys first, as the book) or\n"
          "qkv; it changes the gradients only (default kqv)"))
OPTION(EMBEDDINGS, "embeddings", 0, "FILE", INPUTS, 14,
       N_("one row per token: label, then its vector; d_model\n"
          "is the file's width, no embedding draws (default none)"))
OPTION(RANDN_INPUT, "randn-input", 0, NULL, INPUTS, 46,
       N_("the input is torch.randn(B, T, d_model), not an\n"
          "embedding lookup; element 0 is shown (default off)"))
OPTION(BATCH, "batch", 0, "B", INPUTS, 47,
       N_("the batch B the input and dropout masks are drawn\n"
          "for, 1 to 1024                       (default 1)"))
OPTION(INPUT, "input", 0, "FILE", INPUTS, 15,
       N_("one run per data row of FILE ...    (default none)"))
OPTION(COLUMN, "column", 0, "NAME", INPUTS, 16,
       N_("... taking the sentence from column NAME"))
OPTION(QUIET, "quiet", 0, NULL, INPUTS, 40,
       N_("no progress line on a terminal  (default shown\n"
          "after a second of --input or --train)"))
OPTION(WEIGHTS, "weights", 0, "DIR", INPUTS, 17,
       N_("parameter CSVs named as --csv-dir writes them\n"
          "replace the seeded ones             (default none)"))
OPTION(MODEL, "model", 0, "DIR", INPUTS, 51,
       N_("a GPT-2 checkpoint folder from the Hugging Face\n"
          "hub: config.json, model.safetensors, vocab.json\n"
          "and merges.txt                      (default none)"))
OPTION(LAYERS, "layers", 0, "LIST", INPUTS, 52,
       N_("with --model, the layers shown: 0,3,5-7 (default\n"
          "all); with --variant block, a count N: N blocks\n"
          "stacked as nn.Sequential        (default one block)"))
OPTION(SHOW_HEADS, "show-heads", 0, "LIST", INPUTS, 53,
       N_("with --model, the heads shown: 0,3,5-7  (default all)"))
OPTION(CSV_DELIMITER, "csv-delimiter", 0, "C", INPUTS, 18,
       N_("field separator of CSV read and written: one\n"
          "character or 'tab'  (default ',', ';' with\n"
          "--decimal-comma)"))
OPTION(DECIMAL_COMMA, "decimal-comma", 0, NULL, INPUTS, 19,
       N_("numbers in CSV as 0,25               (default 0.25)"))
OPTION(BOM, "bom", 0, NULL, INPUTS, 20,
       N_("start written CSV with a UTF-8 byte-order mark\n"
          "                                      (default none)"))
OPTION(FORMAT, "format", 0, "FMT", OUTPUT, 9,
       N_("text, or csv for tidy CSV          (default text)"))
OPTION(TABLES, "tables", 0, "LIST", OUTPUT, 8,
       N_("only these tables, comma-separated  (default all)"))
OPTION(PRECISION, "precision", 0, "N", OUTPUT, 10,
       N_("decimals in text, 0 to 12             (default 4)"))
OPTION(FULL, "full", 0, NULL, OUTPUT, 11,
       N_("print big tables whole      (default summarised)"))
OPTION(STYLE, "style", 0, "HOW", OUTPUT, 12,
       N_("text tables: table, or torch as print(tensor)\n"
          "                                     (default table)"))
OPTION(CSV_DIR, "csv-dir", 0, "DIR", OUTPUT, 13,
       N_("also write one matrix CSV per table  (default none)"))
OPTION(HTML, "html", 0, "FILE", OUTPUT, 33,
       N_("also write an interactive page    (default none)"))
OPTION(COLOR, "color", 0, "WHEN", OUTPUT, 26,
       N_("shade attention weights and scores: auto (on a\n"
          "terminal, unless NO_COLOR is set), always, never\n"
          "                                      (default auto)"))
OPTION(COLOR_SCALE, "color-scale", 0, "S", OUTPUT, 32,
       N_("colours from each table's smallest to largest\n"
          "value (table), each row's (row), or 0 to 1 for\n"
          "weights (fixed), on the terminal, in --plot and\n"
          "in --html                        (default table)"))
OPTION(WIDTH, "width", 0, "N", OUTPUT, 30,
       N_("text columns; 0 for no limit (default: the\n"
          "terminal's width, else $COLUMNS, else 80)"))
OPTION(LANG, "lang", 0, "CODE", OUTPUT, 31,
       N_("messages in en, pt_BR, es, zh_CN or zh_TW (default\n"
          "from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)"))
OPTION(PLOT, "plot", 0, "FILE", PICTURES, 34,
       N_("also draw every head's attention weights, or the\n"
          "--tables chosen, to FILE: .png, .svg or .pdf\n"
          "                                     (default none)"))
OPTION(PLOT_SIZE, "plot-size", 0, "WxH", PICTURES, 35,
       N_("the picture's size: pixels for .png, points for\n"
          ".svg and .pdf          (default: fit the panels)"))
OPTION(CMAP, "cmap", 0, "NAME", PICTURES, 48,
       N_("the colour map of --plot and --html, as matplotlib\n"
          "names it: viridis, magma, Blues, RdBu, coolwarm,\n"
          "... and NAME_r reversed  (default viridis; RdBu_r\n"
          "for tables of both signs)"))
OPTION(NUMBERS, "numbers", 0, "WHEN", PICTURES, 49,
       N_("values in --plot's cells, with --precision\n"
          "decimals (default 2): on, off  (default on)"))
OPTION(COLORBAR, "colorbar", 0, "WHERE", PICTURES, 50,
       N_("--plot's colour bars: panel (one per panel, on its\n"
          "own scale), shared (one per table name), none\n"
          "(default panel; shared with --color-scale fixed)"))
OPTION(LAYOUT, "layout", 0, "HOW", TERMINAL, 37,
       N_("the same table of every head side by side (grid)\n"
          "or one under another (stack) (default: grid on a\n"
          "terminal where the heads fit, else stack)"))
OPTION(NO_PAGER, "no-pager", 0, NULL, TERMINAL, 38,
       N_("never page; output longer than the screen goes\n"
          "through $MHA_EXPLAIN_PAGER, else $PAGER, else\n"
          "less -FRX                        (default paged)"))
OPTION(STEP, "step", 0, NULL, TERMINAL, 39,
       N_("one step per screen: space, Enter, Down or\n"
          "PageDown scroll a tall step, then go on; b, Up or\n"
          "PageUp back; q quits                (default off)"))
OPTION(EXPLAIN, "explain", 0, NULL, TEACHING, 24,
       N_("plain sentences and shapes before each step, and\n"
          "each module's parameter count         (default off)"))
OPTION(FOCUS, "focus", 0, "WORD", TEACHING, 25,
       N_("one token across every head: Q, K, V, whom it\n"
          "attends to, who attends to it, its context;\n"
          "WORD@POSITION for a repeated word    (default none)"))
OPTION(TIE, "tie", 0, NULL, TEACHING, 21,
       N_("fused W_query/W_key/W_value = the wrapper's heads\n"
          "stacked, so both compute the same context (off)"))
OPTION(CHECK, "check", 0, NULL, TEACHING, 22,
       N_("verify that weight rows sum to 1, masked weights\n"
          "are 0 and, with --tie, wrapper equals fused (off)"))
OPTION(AVERAGE, "average", 0, NULL, TEACHING, 23,
       N_("add attn_weights_avg, the mean over heads   (off)"))
OPTION(THREADS, "threads", 0, "N", SPEED, 36,
       N_("threads sharing the work, 1 to 256 (default: the\n"
          "processors this process may use)"))
OPTION(HELP, "help", 'h', NULL, GENERAL, 41,
       N_("show this help and exit"))
OPTION(VERSION, "version", 'V', NULL, GENERAL, 42,
       N_("show the version and exit"))
/* clang-format on */
