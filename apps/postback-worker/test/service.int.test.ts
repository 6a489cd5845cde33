import { describeServiceBasics } from '@cw-tools/testing';
import { createApp } from '../src/app';

describeServiceBasics('postback-worker', createApp);
