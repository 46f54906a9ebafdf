/* placeholder */ int rtr_placeholder_pipeline(void); int rtr_placeholder_pipeline(void) { return 0; }
