import { describeServiceBasics } from '@cw/testing';
import { createApp } from '../src/app';

describeServiceBasics('mcp-server', createApp);
