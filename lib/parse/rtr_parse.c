/* placeholder */ int rtr_placeholder_rtr_parse(void); int rtr_placeholder_rtr_parse(void) { return 0; }
