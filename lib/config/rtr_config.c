/* placeholder */ int rtr_placeholder_rtr_config(void); int rtr_placeholder_rtr_config(void) { return 0; }
