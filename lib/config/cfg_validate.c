/* placeholder */ int rtr_placeholder_cfg_validate(void); int rtr_placeholder_cfg_validate(void) { return 0; }
