/* placeholder */ int rtr_placeholder_cfg_tree(void); int rtr_placeholder_cfg_tree(void) { return 0; }
