import { linkSuite } from './link-suite.js';

linkSuite('esps').run();
